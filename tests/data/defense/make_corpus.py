"""Write the labelled memory-defense corpus: dev.jsonl (tuned on) and holdout.jsonl (measured only).

Each line: {"id", "text", "expect": [{"category": "secret"|"pii", "kind", "value"}]}; every
``value`` is a substring of ``text`` that a detector must cover, and nothing else in the text
is sensitive. The two parts use different sentence templates and different random values
(their own seeds), and each has hard negatives (ids, hashes, dates, prices, versions, words
about passwords) of its own. Run: python tests/data/defense/make_corpus.py
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent
ALNUM = string.ascii_letters + string.digits


def rand(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for check in string.digits:
        number = body + check
        total = 0
        for i, ch in enumerate(reversed(number)):
            d = int(ch)
            if i % 2:
                d = d * 2 - 9 if d > 4 else d * 2
            total += d
        if total % 10 == 0:
            return number
    raise AssertionError


def iban(country: str, bban: str) -> str:
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return f"{country}{check:02d}{bban}"


def grouped(number: str, sep: str, size: int = 4) -> str:
    return sep.join(number[i : i + size] for i in range(0, len(number), size))


def secrets_of(rng: random.Random) -> dict[str, str]:
    b64 = string.ascii_letters + string.digits + "+/"
    url = string.ascii_letters + string.digits + "-_"
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = (
        base64.urlsafe_b64encode(
            json.dumps({"sub": rand(rng, 8), "iat": rng.randint(1600000000, 1800000000)}).encode()
        )
        .decode()
        .rstrip("=")
    )
    return {
        "github_token": "ghp_" + rand(rng, 36),
        "aws_access_key": "AKIA" + rand(rng, 16, string.ascii_uppercase + string.digits),
        "aws_secret_key": rand(rng, 40, b64),
        "slack_token": f"xoxb-{rng.randint(10**11, 10**12)}-{rng.randint(10**11, 10**12)}-"
        + rand(rng, 24),
        "stripe_key": "sk_live_" + rand(rng, 24),
        "openai_key": "sk-proj-" + rand(rng, 48, url),
        "anthropic_key": "sk-ant-api03-" + rand(rng, 86, url),
        "google_key": "AIza" + rand(rng, 35, url),
        "jwt": f"{head}.{payload}.{rand(rng, 43, url)}",
        "sendgrid_key": "SG." + rand(rng, 22, url) + "." + rand(rng, 43, url),
        "npm_token": "npm_" + rand(rng, 36),
        "hf_token": "hf_" + rand(rng, 34),
        "gitlab_token": "glpat-" + rand(rng, 20, url),
        "unknown_token": rand(rng, 32),
        "db_password": rng.choice(
            [
                "Tr0ub4dor&3",
                "s3cr3t-Pa55",
                "P@ssw0rd!2024",
                "mUstang#77",
                "kettle-Orbit-19",
                "Zx9!qLm2",
            ]
        )
        + str(rng.randint(0, 9)),
        "word_password": rng.choice(
            ["sunflower", "bluebird", "marmalade", "pinecone", "lighthouse", "carousel"]
        )
        + str(rng.randint(10, 99)),
        "private_key": "-----BEGIN RSA PRIVATE KEY-----\n"
        + "\n".join(rand(rng, 64, b64) for _ in range(4))
        + "\n-----END RSA PRIVATE KEY-----",
    }


def pii_of(rng: random.Random) -> dict[str, str]:
    first = rng.choice(["maria", "john", "wei", "aisha", "lars", "priya", "tom", "elena"])
    last = rng.choice(["garcia", "smith", "chen", "khan", "berg", "patel", "okafor", "rossi"])
    domain = rng.choice(["gmail.com", "example.org", "company.co.uk", "mail.de", "uni-bonn.de"])
    area = rng.choice(["415", "212", "617", "312", "206", "503", "646", "720"])
    line = f"{rng.randint(200, 999)}{rng.randint(1000, 9999)}"
    return {
        "email": f"{first}.{last}{rng.randint(1, 99)}@{domain}",
        "phone_us": rng.choice(
            [
                f"({area}) {line[:3]}-{line[3:]}",
                f"{area}-{line[:3]}-{line[3:]}",
                f"{area}.{line[:3]}.{line[3:]}",
                f"+1 {area} {line[:3]} {line[3:]}",
            ]
        ),
        "phone_intl": rng.choice(
            [
                f"+44 20 7{rng.randint(100, 999)} {rng.randint(1000, 9999)}",
                f"+49 30 {rng.randint(1000000, 9999999)}",
                f"+33 1 {rng.randint(10, 99)} {rng.randint(10, 99)} "
                f"{rng.randint(10, 99)} {rng.randint(10, 99)}",
            ]
        ),
        "visa": grouped(luhn_complete("4", 16, rng), rng.choice([" ", "-", ""])),
        "mastercard": grouped(luhn_complete(rng.choice(["51", "53", "55"]), 16, rng), " "),
        "amex": (lambda n: f"{n[:4]} {n[4:10]} {n[10:]}")(luhn_complete("37", 15, rng)),
        "iban": rng.choice(
            [
                grouped(iban("DE", "".join(rng.choice(string.digits) for _ in range(18))), " "),
                iban("GB", "NWBK" + "".join(rng.choice(string.digits) for _ in range(14))),
                grouped(iban("FR", "".join(rng.choice(string.digits) for _ in range(23))), " "),
                iban("NL", "ABNA" + "".join(rng.choice(string.digits) for _ in range(10))),
            ]
        ),
        "ssn": f"{rng.randint(100, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}",
        "account": "".join(rng.choice(string.digits) for _ in range(rng.randint(8, 12))),
        "address": f"{rng.randint(1, 9999)} "
        + rng.choice(["Maple", "Oak", "Lincoln", "Sunset", "Elm", "Harbor", "Mission", "Cedar"])
        + " "
        + rng.choice(["Street", "Avenue", "Road", "Drive", "Lane", "Blvd", "Court", "Way"]),
        "postcode": rng.choice(
            ["SW1A 1AA", "EC1A 1BB", "M1 1AE", "B33 8TH", "CR2 6XH", "DN55 1PT"]
        ),
    }


DEV_SECRET = [
    ("github_token", "I set GITHUB_TOKEN={v} in the CI settings yesterday."),
    ("aws_access_key", "The deploy user has access key id {v} and it expires in March."),
    ("aws_secret_key", "aws_secret_access_key = {v}"),
    ("slack_token", "Our bot posts with {v} to the #ops channel."),
    ("stripe_key", "Use the live key {v} only on the payment server."),
    ("openai_key", "My OpenAI key is {v}, please keep it handy."),
    ("google_key", "Maps API works with key={v} for now."),
    ("jwt", "The session cookie contained {v} when it failed."),
    ("sendgrid_key", "Email goes out through SendGrid with {v}."),
    ("npm_token", "Publish with NPM_TOKEN {v} from the release box."),
    ("unknown_token", "The vendor gave us the token {v} for the staging webhook."),
    ("db_password", "The database password is {v} until we rotate it."),
    ("word_password", "Remember: the wifi password is {v}"),
    ("private_key", "Here is the deploy key:\n{v}\nDo not share it."),
    ("db_password", "Connect with postgres://app:{v}@db.internal:5432/main to debug."),
    ("unknown_token", "curl -H 'Authorization: Bearer {v}' https://api.example.com/v1/me"),
]
DEV_PII = [
    ("email", "You can reach Maria at {v} after Monday."),
    ("phone_us", "Call the clinic at {v} to move the appointment."),
    ("phone_intl", "His London office number is {v}."),
    ("visa", "I paid with my card {v} and it was charged twice."),
    ("mastercard", "Card on file: {v}, expiry 09/27."),
    ("iban", "Please wire the deposit to IBAN {v} by Friday."),
    ("ssn", "For the tax form, my SSN is {v}."),
    ("account", "My checking account number is {v} at Chase."),
    ("address", "We moved to {v}, Springfield last spring."),
    ("postcode", "The parcel goes to the flat at postcode {v}."),
]
HOLDOUT_SECRET = [
    ("anthropic_key", "export ANTHROPIC_API_KEY={v}"),
    ("hf_token", "Downloading the model needs the Hugging Face token {v} on that machine."),
    ("gitlab_token", "Runner registration used {v} last week."),
    ("github_token", "gh auth login --with-token <<< {v}"),
    ("aws_access_key", "Found {v} hard-coded in settings.py, revoke it."),
    ("jwt", "Authorization header was Bearer {v} in the failing request."),
    ("stripe_key", "STRIPE_SECRET_KEY: {v}"),
    ("db_password", "mysql -u root -p'{v}' shop  # typed that to get in"),
    ("word_password", "Dad's laptop passcode: {v}"),
    ("db_password", "New password for the admin console = {v}"),
    ("unknown_token", "api_key: {v}"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----"),
    ("slack_token", 'SLACK_BOT_TOKEN="{v}"'),
    ("openai_key", "The assistant used {v} for embeddings."),
]
HOLDOUT_PII = [
    ("email", "Send the contract to {v} (legal team)."),
    ("phone_us", "Text me on {v} when you land."),
    ("phone_intl", "Reception: {v}, ask for Dr. Weber."),
    ("amex", "Corporate Amex {v} is the one to use for travel."),
    ("visa", "Refund went back to {v}."),
    ("iban", "Salary account {v}"),
    ("ssn", "Applicant SSN {v}, DOB withheld."),
    ("account", "Routing and account: acct # {v}"),
    ("address", "Deliveries go to {v} Apt 4B."),
    ("postcode", "Our Manchester office is at 1 Piccadilly, {v}."),
]
DEV_NEGATIVE = [
    "Fixed in commit 3f2a9c1d2e4b5a6c7d8e9f0a1b2c3d4e5f6a7b8c, deployed at 14:05.",
    "The request id was 550e8400-e29b-41d4-a716-446655440000 in the logs.",
    "Version 2.14.3 shipped on 2024-03-18 with 17 fixes.",
    "The password reset email expired, so she asked for a new one.",
    "Rotate your API keys every 90 days; the token is valid for one hour.",
    "Order #482913 cost $1,299.99 and arrives on 12/05/2024.",
    "Meeting moved to room 3041 at 10:30 on Tuesday.",
    "The ISBN is 978-3-16-148410-0 and the second edition came out in 2019.",
    "Track it with 1Z999AA10123456784 on the carrier site.",
    "Read https://docs.example.com/guides/getting-started/installation for the setup steps.",
    "The function getUserAccountBalanceById returns a Decimal.",
    "Caroline went to the LGBTQ support group yesterday and felt welcomed.",
    "We sold 4111 units in the first quarter, up from 3980.",
    "The image digest is sha256:9b2c4a1e8f7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b.",
    "Set the timeout to 30000 ms and retries to 5.",
    "Her password is strong and she never reuses it.",
    "Flight UA123 departs at 07:45 from gate B12.",
    "The server at 10.0.4.17 answered after 250 ms.",
    "He lives on Maple Street, two houses from the park.",
    "Population grew from 1,204,331 to 1,318,004 between 2010 and 2020.",
    "The serial number 4000 1234 5678 9011 on the invoice was a typo of ours.",
    "Use the secret santa list from last year.",
    "Melanie painted a sunrise over the lake in 2022.",
    "The build cache key was node-modules-linux-x64-18.17.0-a1b2c3.",
]
HOLDOUT_NEGATIVE = [
    "Merged PR #1432 after review; CI run 98231774 took 12 minutes.",
    "Invoice INV-2024-000381 totals EUR 2.430,00.",
    "The tokenizer splits internationalization into word pieces.",
    "Customer 00017 asked whether their password was stored in plain text.",
    "Trace id 4bf92f3577b34da6a3ce929d0e0e4736 appears in both services.",
    "The lecture is in building 45, room 112, at 9 am on 3 May 2023.",
    "She ran 10 km in 52:31, her best time since 2018.",
    "Photo IMG_20230514_183022.jpg shows the whole team.",
    "Docker tag registry.example.com/team/api:2024.05.1-rc2 was pulled.",
    "Key takeaways: keep secrets out of git and rotate tokens.",
    "The recipe needs 250 g flour, 3 eggs and 1 tsp salt.",
    "Grace Hopper found a moth in the Mark II in 1947.",
    "Call center hours are 9 to 5, Monday to Friday.",
    "Lot number 5520-1137-8842 was recalled.",
    "Coordinates 52.5200, 13.4050 point at Berlin.",
    "Our bank is closed on public holidays.",
]


def build(rng: random.Random, secret_t, pii_t, negatives, copies: int) -> list[dict]:
    rows: list[dict] = []
    for n in range(copies):
        secrets, pii = secrets_of(rng), pii_of(rng)
        for kind, template in secret_t:
            value = secrets[kind]
            rows.append(
                {
                    "text": template.format(v=value),
                    "expect": [{"category": "secret", "kind": kind, "value": value}],
                }
            )
        for kind, template in pii_t:
            value = pii[kind]
            rows.append(
                {
                    "text": template.format(v=value),
                    "expect": [{"category": "pii", "kind": kind, "value": value}],
                }
            )
        if n == 0:
            rows.extend({"text": text, "expect": []} for text in negatives)
    # Mixed items: a secret and personal data in one text.
    for _ in range(copies * 2):
        secrets, pii = secrets_of(rng), pii_of(rng)
        s_kind, p_kind = rng.choice(list(secrets)), rng.choice(["email", "phone_us", "visa"])
        text = (
            f"Notes from the call: contact {pii[p_kind]}; the integration uses "
            f"{secrets[s_kind]} for now."
        )
        rows.append(
            {
                "text": text,
                "expect": [
                    {"category": "pii", "kind": p_kind, "value": pii[p_kind]},
                    {"category": "secret", "kind": s_kind, "value": secrets[s_kind]},
                ],
            }
        )
    for i, row in enumerate(rows):
        row["id"] = i
    return rows


def main() -> None:
    parts = {
        "dev": build(random.Random(1919), DEV_SECRET, DEV_PII, DEV_NEGATIVE, 3),
        "holdout": build(random.Random(7331), HOLDOUT_SECRET, HOLDOUT_PII, HOLDOUT_NEGATIVE, 3),
    }
    for name, rows in parts.items():
        with (HERE / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(name, len(rows))


if __name__ == "__main__":
    main()
