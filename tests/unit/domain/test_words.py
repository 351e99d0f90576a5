from app.domain.words import related


def test_words_of_one_stem_are_related() -> None:
    assert related("allergy", "allergic")
    assert related("cello", "cellist")
    assert related("pharmacy", "pharmacist")
    assert related("walking", "walk")


def test_words_that_only_begin_alike_are_not() -> None:
    assert not related("garage", "garden")
    assert not related("car", "cart")
