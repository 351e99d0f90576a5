"""Memory defense: find secrets and personal data in text before anything is stored.

A bank's :class:`DefenseConfig` gives each category (``secrets``, ``pii``) an action —
``redact`` (the match becomes ``[REDACTED:TYPE]``), ``block`` (the item is not stored) or
``off`` — and lets single detectors differ from their category.

The detectors run offline and in microseconds per kilobyte: patterns with a checksum or a
structure wherever one exists (Luhn for card numbers, ISO 13616 mod 97 for IBANs, the SSA's
rules for US social security numbers, libphonenumber's validation for phone numbers), the
published prefixes of provider tokens (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic,
Google, SendGrid, npm, PyPI, Hugging Face, JWTs, PEM private keys), credentials named as such
("password: …", ``user:pass@host``), and long random-looking strings (character-class and
entropy tests) for tokens of unknown providers. A match never leaves this module except as its
position and detector: callers keep events, never the matched text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Literal

import msgspec

Action = Literal["redact", "block", "off"]
# What a redacted match becomes: "[REDACTED:EMAIL]".
REDACTED = "[REDACTED:"
Category = Literal["secret", "pii"]
Severity = Literal["high", "medium", "low"]


class DefenseConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A bank's memory defense.

    ``secrets`` (keys, tokens, passwords, private keys) are redacted by default: a memory is
    the wrong place for them. ``pii`` (emails, phones, card and account numbers, addresses) is
    ``off`` by default, because remembering how to reach people is what many agents are for;
    turn it on per bank. ``detectors`` overrides single detectors by name (see
    :data:`DETECTORS`).
    """

    secrets: Action = "redact"
    pii: Action = "off"
    detectors: dict[str, Action] = msgspec.field(default_factory=dict)

    def action(self, detector: Detector) -> Action:
        """What this bank does with a match of ``detector``."""
        if detector.name in self.detectors:
            return self.detectors[detector.name]
        return self.secrets if detector.category == "secret" else self.pii


class Finding(msgspec.Struct, frozen=True):
    """A match: where it is and what found it (never the matched text)."""

    start: int
    end: int
    detector: str
    label: str
    category: Category
    severity: Severity


class Detector(msgspec.Struct, frozen=True):
    """One kind of sensitive text."""

    name: str
    label: str  # what replaces a match: [REDACTED:<label>]
    category: Category
    severity: Severity
    description: str
    find: Callable[[str], Iterator[tuple[int, int]]]


class Screened(msgspec.Struct, frozen=True):
    """Text after the bank's actions: redacted text, what was found, whether to block it."""

    text: str
    findings: tuple[Finding, ...]
    blocked: tuple[Finding, ...]
    redacted: tuple[Finding, ...]


# -- pattern helpers ------------------------------------------------------------------------


Finder = Callable[[str], Iterator[tuple[int, int]]]


def _matches(pattern: re.Pattern[str], group: int = 0) -> Finder:
    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in pattern.finditer(text):
            if match.group(group):
                yield match.span(group)

    return find


def _checked(
    pattern: re.Pattern[str], check: Callable[[str], bool], group: int = 0
) -> Callable[[str], Iterator[tuple[int, int]]]:
    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in pattern.finditer(text):
            value = match.group(group)
            if value and check(value):
                yield match.span(group)

    return find


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def luhn_valid(number: str) -> bool:
    """The Luhn checksum of a digit string (card numbers)."""
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# Issuer prefixes and lengths of the card networks in use (Visa, Mastercard, Amex, Discover,
# JCB, Diners, UnionPay, Maestro).
_CARD_PREFIX = re.compile(
    r"^(?:4\d{12}(?:\d{3}){0,2}|5[1-5]\d{14}|2(?:2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)\d{12}"
    r"|3[47]\d{13}|6(?:011|5\d\d|4[4-9]\d)\d{12}(?:\d{3})?|35(?:2[89]|[3-8]\d)\d{12}(?:\d{3})?"
    r"|3(?:0[0-5]|[689]\d)\d{11}|62\d{14,17}|(?:50|5[6-9]|6\d)\d{10,17})$"
)


def card_valid(value: str) -> bool:
    """A plausible payment card number: known issuer prefix and length, Luhn checksum."""
    number = _digits(value)
    return bool(_CARD_PREFIX.match(number)) and luhn_valid(number) and len(set(number)) > 1


# IBAN length by country (ISO 13616 registry).
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip


def iban_valid(value: str) -> bool:
    """An IBAN: the country's length and the mod-97 check."""
    iban = re.sub(r"\s", "", value).upper()
    if _IBAN_LENGTHS.get(iban[:2]) != len(iban):
        return False
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def aba_valid(value: str) -> bool:
    """A US bank routing number (ABA) checksum."""
    d = [int(c) for c in _digits(value)]
    if len(d) != 9:
        return False
    return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10 == 0


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s own character distribution."""
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(value: str) -> bool:
    """A long token that reads like a generated secret rather than a word, id or path.

    Mixed letters and digits (and usually cases), no long run of letters that could be a
    word, and a high entropy for its length. UUIDs, plain hex digests (commit ids), dates and
    numbers are not secrets by themselves.
    """
    core = value.strip("=")
    if len(core) < 20 or _UUID.fullmatch(core) or re.fullmatch(r"[0-9a-fA-F]+", core):
        return False
    if re.fullmatch(r"[\d\W_]+", core) or re.fullmatch(r"[A-Za-z\W_]+", core):
        return False
    classes = sum(bool(re.search(p, core)) for p in (r"[a-z]", r"[A-Z]", r"\d", r"[+/_\-]"))
    # A long run of lower-case letters is a word (random text of 64 symbols almost never has
    # one); camelCase and snake_case identifiers fail the entropy test below.
    if classes < 3 or re.search(r"[a-z]{12,}", core):
        return False
    return shannon_entropy(core) >= 4.0


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

# Words that follow "password is" without being a password.
_NOT_A_PASSWORD = frozenset(
    """
    a an the my your his her our their this that it is was be been being not no yes wrong
    right correct incorrect invalid valid expired required needed missing empty blank weak
    strong secure insecure reset changed updated saved stored set same different too very
    also still now here there in on at for to of and or but if so when which what who how
    below above attached enclosed hidden protected shown visible known unknown forgotten
    long short simple complex case sensitive something anything nothing please ok okay
    """.split()  # noqa: SIM905 - a word list reads better as words
)


def _password_value(value: str) -> bool:
    if value.startswith(REDACTED):
        return False
    word = value.strip(".,;:!?'\"()[]{}").lower()
    return len(word) >= 4 and word not in _NOT_A_PASSWORD


def _token_value(value: str) -> bool:
    if value.startswith(REDACTED):
        return False
    core = value.strip(".,;:!?'\"()[]{}")
    if len(core) < 8 or core.lower() in _NOT_A_PASSWORD:
        return False
    has_digit = any(c.isdigit() for c in core)
    has_alpha = any(c.isalpha() for c in core)
    mixed = any(c.islower() for c in core) and any(c.isupper() for c in core)
    return (has_digit and has_alpha) or (mixed and len(core) >= 12) or not core.isalnum()


# -- the patterns -----------------------------------------------------------------------------

_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:\-,]*)"
)
_AWS_ACCESS_KEY = re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[0-9A-Z]{16}\b")
_AWS_SECRET = re.compile(
    r"(?i)aws.{0,30}?(?:secret|private)[_ .-]?(?:access[_ .-]?)?key.{0,10}?[=:\s\"']+"
    r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
_GITHUB = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{40,255})\b")
_GITLAB = re.compile(r"\bgl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,}")
_SLACK = re.compile(
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"
)
_STRIPE = re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}")
_OPENAI = re.compile(r"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_-]{20,}")
_GOOGLE = re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])|\bGOCSPX-[0-9A-Za-z_-]{28}")
_SENDGRID = re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_PACKAGE_TOKENS = re.compile(
    r"\b(?:npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|hf_[A-Za-z0-9]{34}"
    r"|dop_v1_[a-f0-9]{64}|mnemo_[A-Za-z0-9_-]{43}|xai-[A-Za-z0-9]{60,}"
    r"|SK[0-9a-f]{32}|AC[0-9a-f]{32}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b"
)
_URL_CREDENTIALS = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@'\"<>]{1,100}:([^\s@/'\"<>]{1,200})@[^\s/@'\"<>]"
)
_AUTH_HEADER = re.compile(
    r"(?i)\b(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{19,}[A-Za-z0-9_~+/=-])"
)
_PASSWORD = re.compile(
    r"(?i)\b(?:pass(?:word|wd|phrase|code)?|pwd|pin code|passcode)s?\b"
    r"(?:\s+(?:for|to|of|on)\s+[\w.@-]+)?\s*(?:is|was|=|:|->|will be|remains)\s*[\"'`]?"
    r"([^\s\"'`,;]{0,127}[^\s\"'`,;.!?)\]])"
)
_SECRET_ASSIGNMENT = re.compile(
    r"(?i)\b(?:api[_ -]?key|apikey|secret(?:[_ -]?key)?|access[_ -]?key|access[_ -]?token"
    r"|auth[_ -]?token|refresh[_ -]?token|client[_ -]?secret|private[_ -]?key|token"
    r"|credentials?)\b(?:\s+(?:for|to|of|on)\s+[\w.@-]+)?\s*(?:is|was|=|:|->)\s*[\"'`]?"
    r"([^\s\"'`,;]{0,255}[^\s\"'`,;.!?)\]])"
)
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_=\-.])[A-Za-z0-9+/_=\-]{20,}(?![A-Za-z0-9+/_=\-])")

_EMAIL = re.compile(
    r"\b[A-Za-z0-9._%+\-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+"
    r"[A-Za-z]{2,24}\b"
)
_CARD = re.compile(r"(?<![\d.-])(?:\d[ \-]?){12,18}\d(?![\d-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b")
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}[- ](?!00)\d{2}[- ](?!0000)\d{4}(?![\d-])")
_ACCOUNT = re.compile(
    r"(?i)\b(?:account|acct|a/c|routing|sort code|bsb)\b(?:\s+(?:no\.?|number|num|#))?"
    r"\s*(?:is|:|#|=)?\s*(\d[\d \-]{4,22}\d)\b"
)
_STREET_TYPES = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl"
    r"|Terrace|Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Crescent|Close"
    r"|Row|Alley|Plaza|Gardens)"
)
_STREET = re.compile(
    r"\b\d{1,6}[A-Za-z]?\s+(?:(?:[NSEW]|North|South|East|West)\.?\s+)?"
    r"(?:[A-Z][a-z']+\.?\s+){1,4}" + _STREET_TYPES + r"\b\.?"
    r"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|Flat|#)\.?\s*[A-Za-z0-9\-]+)?"
    r"(?:,\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2})?"
    r"(?:,?\s+[A-Z]{2}(?=[\s,.]|$))?(?:,?\s+\d{5}(?:-\d{4})?)?"
)
_POSTCODE_UK = re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]?\s\d[ABD-HJLNP-UW-Z]{2}\b")


def _phones(text: str) -> Iterator[tuple[int, int]]:
    if not re.search(r"\d{3}", text):
        return
    import phonenumbers

    matcher = phonenumbers.PhoneNumberMatcher(
        text, "US", leniency=phonenumbers.Leniency.VALID, max_tries=100_000
    )
    for match in matcher:
        yield match.start, match.end


def _emails(text: str) -> Iterator[tuple[int, int]]:
    for match in _EMAIL.finditer(text):
        # "scheme://user:password@host" is a credential, not an address.
        token = text[max(0, match.start() - 200) : match.start()].split()[-1:] or [""]
        if "://" not in token[0]:
            yield match.span()


def _long_tokens(text: str) -> Iterator[tuple[int, int]]:
    for match in _LONG_TOKEN.finditer(text):
        if looks_random(match.group(0)) and not _in_url_path(text, match.start()):
            yield match.span()


def _in_url_path(text: str, start: int) -> bool:
    """True when ``start`` is inside a URL's path (not after ``=`` of its query)."""
    before = text[max(0, start - 200) : start]
    url = before.rfind("://")
    if url < 0 or re.search(r"\s", before[url:]):
        return False
    return not before.endswith("=")


DETECTORS: tuple[Detector, ...] = (
    Detector("private_key", "PRIVATE_KEY", "secret", "high", "PEM/PGP private key block",
             _matches(_PRIVATE_KEY)),
    Detector("aws_access_key", "AWS_ACCESS_KEY", "secret", "high", "AWS access key id",
             _matches(_AWS_ACCESS_KEY)),
    Detector("aws_secret_key", "AWS_SECRET_KEY", "secret", "high", "AWS secret access key",
             _matches(_AWS_SECRET, 1)),
    Detector("github_token", "GITHUB_TOKEN", "secret", "high", "GitHub token",
             _matches(_GITHUB)),
    Detector("gitlab_token", "GITLAB_TOKEN", "secret", "high", "GitLab token",
             _matches(_GITLAB)),
    Detector("slack_token", "SLACK_TOKEN", "secret", "high", "Slack token or webhook",
             _matches(_SLACK)),
    Detector("stripe_key", "STRIPE_KEY", "secret", "high", "Stripe key", _matches(_STRIPE)),
    Detector("openai_key", "API_KEY", "secret", "high", "OpenAI or Anthropic API key",
             _matches(_OPENAI)),
    Detector("google_key", "GOOGLE_KEY", "secret", "high", "Google API key or OAuth secret",
             _matches(_GOOGLE)),
    Detector("sendgrid_key", "SENDGRID_KEY", "secret", "high", "SendGrid key",
             _matches(_SENDGRID)),
    Detector("jwt", "JWT", "secret", "high", "JSON Web Token", _matches(_JWT)),
    Detector("package_token", "API_TOKEN", "secret", "high",
             "npm, PyPI, Hugging Face, DigitalOcean, Twilio, Shopify, xAI or Mnemo token",
             _matches(_PACKAGE_TOKENS)),
    Detector("url_credentials", "PASSWORD", "secret", "high", "password in a URL",
             _matches(_URL_CREDENTIALS, 1)),
    Detector("auth_header", "TOKEN", "secret", "high", "Bearer/Basic credentials",
             _matches(_AUTH_HEADER, 1)),
    Detector("password", "PASSWORD", "secret", "high", "a value said to be a password",
             _checked(_PASSWORD, _password_value, 1)),
    Detector("secret_assignment", "SECRET", "secret", "high",
             "a value said to be a key, token or secret", _checked(_SECRET_ASSIGNMENT,
                                                                   _token_value, 1)),
    Detector("high_entropy", "SECRET", "secret", "medium",
             "a long random-looking string (a token of an unknown kind)", _long_tokens),
    Detector("email", "EMAIL", "pii", "medium", "email address", _emails),
    Detector("phone", "PHONE", "pii", "medium", "phone number (libphonenumber-valid)",
             _phones),
    Detector("credit_card", "CREDIT_CARD", "pii", "high",
             "payment card number (issuer prefix and Luhn)", _checked(_CARD, card_valid)),
    Detector("iban", "IBAN", "pii", "high", "IBAN (mod 97)", _checked(_IBAN, iban_valid)),
    Detector("us_ssn", "SSN", "pii", "high", "US social security number", _matches(_SSN)),
    Detector("bank_account", "ACCOUNT_NUMBER", "pii", "high",
             "a number said to be an account, routing or sort code", _matches(_ACCOUNT, 1)),
    Detector("street_address", "ADDRESS", "pii", "medium", "street address",
             _matches(_STREET)),
    Detector("uk_postcode", "ADDRESS", "pii", "low", "UK postcode", _matches(_POSTCODE_UK)),
)  # fmt: skip
DETECTOR_NAMES = frozenset(d.name for d in DETECTORS)
_BY_NAME = {d.name: d for d in DETECTORS}


def detect(text: str, names: frozenset[str] | None = None) -> list[Finding]:
    """Every match of the (named) detectors, earliest first; overlaps keep the longer one."""
    found: list[Finding] = []
    for detector in DETECTORS:
        if names is not None and detector.name not in names:
            continue
        for start, end in detector.find(text):
            if end > start:
                found.append(
                    Finding(
                        start, end, detector.name, detector.label, detector.category,
                        detector.severity,
                    )
                )  # fmt: skip
    # Overlapping matches become one span covering both, named by the more specific detector
    # (the earlier in DETECTORS: a GitHub token inside "token: ..." is a GitHub token).
    rank = {d.name: i for i, d in enumerate(DETECTORS)}
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[Finding] = []
    for finding in found:
        if kept and finding.start < kept[-1].end:
            last = kept[-1]
            best = finding if rank[finding.detector] < rank[last.detector] else last
            kept[-1] = msgspec.structs.replace(
                best, start=last.start, end=max(last.end, finding.end)
            )
            continue
        kept.append(finding)
    return kept


def screen(text: str, config: DefenseConfig) -> Screened:
    """Apply the bank's actions to ``text``: redact what is to be redacted, report the rest."""
    active = frozenset(d.name for d in DETECTORS if config.action(d) != "off")
    if not active or not text:
        return Screened(text=text, findings=(), blocked=(), redacted=())
    findings = detect(text, active)
    blocked = tuple(f for f in findings if config.action(_BY_NAME[f.detector]) == "block")
    redacted = tuple(f for f in findings if config.action(_BY_NAME[f.detector]) == "redact")
    out = text
    for finding in sorted(redacted, key=lambda f: f.start, reverse=True):
        out = out[: finding.start] + f"{REDACTED}{finding.label}]" + out[finding.end :]
    return Screened(text=out, findings=tuple(findings), blocked=blocked, redacted=redacted)


def check_config(config: DefenseConfig) -> list[str]:
    """Names in ``config.detectors`` that are not detectors (empty when all are known)."""
    return sorted(set(config.detectors) - DETECTOR_NAMES)


EventSource = Literal["retain", "memory_edit"]
EventAction = Literal["redacted", "blocked"]


class SecurityEvent(msgspec.Struct, frozen=True, kw_only=True):
    """What memory defense did to one field: which detector, how often, never the text."""

    id: str
    at: datetime
    source: EventSource
    action: EventAction
    detector: str
    label: str
    category: Category
    severity: Severity
    # The item's index in its retain request (0 for a memory edit) and the field inside it.
    index: int = 0
    field: str = "content"
    count: int = 1
    document_id: str | None = None
    memory_id: str | None = None


class Violation(msgspec.Struct, frozen=True):
    """Why an item was not stored (a 422 lists one per detector and field)."""

    index: int
    detector: str
    severity: Severity
    message: str


def events_for(
    screened: Screened,
    *,
    field: str,
    index: int,
    at: datetime,
    source: EventSource,
    new_id: Callable[[], str],
    document_id: str | None = None,
    memory_id: str | None = None,
) -> list[SecurityEvent]:
    """One event per detector and action for a screened field."""
    counts: Counter[tuple[str, EventAction]] = Counter()
    first: dict[tuple[str, EventAction], Finding] = {}
    groups: tuple[tuple[EventAction, tuple[Finding, ...]], ...] = (
        ("blocked", screened.blocked),
        ("redacted", screened.redacted),
    )
    for action, findings in groups:
        for finding in findings:
            key = (finding.detector, action)
            counts[key] += 1
            first.setdefault(key, finding)
    return [
        SecurityEvent(
            id=new_id(),
            at=at,
            source=source,
            action=action,
            detector=detector,
            label=first[(detector, action)].label,
            category=first[(detector, action)].category,
            severity=first[(detector, action)].severity,
            index=index,
            field=field,
            count=count,
            document_id=document_id,
            memory_id=memory_id,
        )
        for (detector, action), count in counts.items()
    ]


def violation_of(event: SecurityEvent) -> Violation:
    """The 422 entry for a blocking event (the message names the field, never the value)."""
    detector = _BY_NAME[event.detector]
    times = f" ({event.count} matches)" if event.count > 1 else ""
    return Violation(
        index=event.index,
        detector=event.detector,
        severity=event.severity,
        message=f"{event.field} contains a {detector.description}{times}; "
        "the bank's defense blocks it",
    )
