from app.domain.paging import MAX_OFFSET, offset_of_cursor


def test_ascii_decimals_within_bound_are_offsets() -> None:
    assert offset_of_cursor("0") == 0
    assert offset_of_cursor("277") == 277
    assert offset_of_cursor(str(MAX_OFFSET)) == MAX_OFFSET


def test_digits_int_refuses_or_past_the_bound_are_not_offsets() -> None:
    # Superscripts pass str.isdigit but int() raises on them; Arabic-Indic digits int() reads.
    for cursor in ["\u00b21", "\u0663", "-1", "1.5", "", " 1", str(MAX_OFFSET + 1), "9" * 30]:
        assert offset_of_cursor(cursor) is None, cursor
