from app.curate.browse import _Counted, chart_freshness
from app.curate.schemas.browse import BankActivity, ConsolidationBacklog


def _counted(at: float, memories: int) -> _Counted:
    return _Counted(
        activity=BankActivity(bank_id="b", by="retained", days=[]), at=at, memories=memories
    )


def test_a_chart_never_counted_is_missing() -> None:
    assert chart_freshness(None, memories=0, now=5.0, max_age_s=60) == "missing"


def test_a_recent_count_of_an_unchanged_bank_is_shown_as_it_is() -> None:
    assert chart_freshness(_counted(100.0, 7), memories=7, now=159.0, max_age_s=60) == "fresh"


def test_a_moved_count_or_an_old_count_is_stale() -> None:
    assert chart_freshness(_counted(100.0, 7), memories=8, now=101.0, max_age_s=60) == "stale"
    assert chart_freshness(_counted(100.0, 7), memories=6, now=101.0, max_age_s=60) == "stale"
    assert chart_freshness(_counted(100.0, 7), memories=7, now=160.5, max_age_s=60) == "stale"


def test_backlog_counts_past_the_cap_read_as_cap_plus() -> None:
    backlog = ConsolidationBacklog(pending=10_001, observations=12, cap=10_000)
    assert backlog.shown(backlog.pending) == "10,000+"
    assert backlog.shown(backlog.observations) == "12"
    assert backlog.shown(10_000) == "10,000"
    assert ConsolidationBacklog(pending=5).shown(5) == "5", "no cap: exact"
