"""What fourcards.hosting refuses (a first user's report): a seat token of a seat or a
match that does not exist, rules or a setup that are not mappings, a service over
something that is not a store, a store asked with an id or a record of the wrong
type. Each is a FourCardsError naming the argument, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fourcards.errors import (
    BadTokenError, FourCardsError, InvalidTypeError, UnknownMatchError, UnknownSeatError,
)
from fourcards.hosting import Hosted, MatchService, MatchStore, MemoryMatchStore, SQLiteMatchStore, StoredMatch

KEY = "hosting secret"
SEATS: list[str | None] = [None, "random"]


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MatchStore]:
    if request.param == "memory":
        yield MemoryMatchStore()
        return
    sqlite = SQLiteMatchStore(tmp_path / "matches.db", synchronous="NORMAL")
    yield sqlite
    sqlite.close()


@pytest.fixture
def hosted(store: MatchStore) -> tuple[MatchService, Hosted]:
    service = MatchService(store, KEY)
    return service, service.create("duelo", SEATS, seed=3, match_id="m1")


def contents(store: Any, match_id: str = "m1") -> tuple[int, StoredMatch | None]:
    """What a store holds, as far as a test can see: how many matches, and the one of ``match_id``."""
    return len(store), store.get(match_id)


def refused(call: Callable[[], object], error: type[Exception], names: str) -> FourCardsError:
    """``call`` raised ``error`` (a FourCardsError) whose message names ``names``."""
    with pytest.raises(error) as caught:
        call()
    assert isinstance(caught.value, FourCardsError)
    assert names in str(caught.value), str(caught.value)
    return caught.value


# -- seat tokens --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("match_id", "seat", "error", "names"), [
    ("m1", 2, UnknownSeatError, "seat"),
    ("m1", 99, UnknownSeatError, "seat"),
    ("m1", -1, UnknownSeatError, "seat"),
    ("m1", 2**70, UnknownSeatError, "seat"),
    ("nope", 0, UnknownMatchError, "nope"),
    ("../etc", 0, UnknownMatchError, "../etc"),
    ("m1", 0.0, InvalidTypeError, "seat"),
    ("m1", True, InvalidTypeError, "seat"),
    ("m1", "0", InvalidTypeError, "seat"),
    ("m1", None, InvalidTypeError, "seat"),
    (1, 0, InvalidTypeError, "match_id"),
    (None, 0, InvalidTypeError, "match_id"),
    (b"m1", 0, InvalidTypeError, "match_id"),
])
def test_no_token_for_a_seat_or_match_that_does_not_exist(
        hosted: tuple[MatchService, Hosted], match_id: Any, seat: Any, error: type[Exception], names: str) -> None:
    service, _ = hosted
    before = contents(service.store)
    refused(lambda: service.seat_token(match_id, seat), error, names)
    assert contents(service.store) == before


def test_the_seats_that_exist_have_their_tokens(hosted: tuple[MatchService, Hosted]) -> None:
    service, match = hosted
    tokens = [service.seat_token(match.id, seat) for seat in range(len(match.seats))]
    assert len(set(tokens)) == len(tokens)
    service.check_token(match.id, 0, tokens[0])
    with pytest.raises(BadTokenError):
        service.check_token(match.id, 0, tokens[1])
    # the token is checked before the match is read: no seat or match that does not exist has one
    for match_id, seat in (("nope", 0), (match.id, 99)):
        with pytest.raises(BadTokenError):
            service.check_token(match_id, seat, tokens[0])
    refused(lambda: service.check_token(match.id, 0.5, tokens[0]), InvalidTypeError, "seat")  # type: ignore[arg-type]
    refused(lambda: service.check_token(7, 0, tokens[0]), InvalidTypeError, "match_id")  # type: ignore[arg-type]


# -- creating -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("options", "names"), [
    ({"rules": "x"}, "rules"),
    ({"rules": 1.5}, "rules"),
    ({"rules": [("hand_limit", 40)]}, "rules"),
    ({"rules": {1: 2}}, "rules"),
    ({"setup": "x"}, "setup"),
    ({"setup": 1.5}, "setup"),
    ({"setup": [("position", None)]}, "setup"),
    ({"setup": {1: 2}}, "setup"),
])
def test_rules_and_setup_must_be_mappings(hosted: tuple[MatchService, Hosted], options: dict[str, Any],
                                          names: str) -> None:
    service, _ = hosted
    before = contents(service.store)
    error = refused(lambda: service.create("duelo", SEATS, match_id="m2", **options), InvalidTypeError, names)
    assert error.code == "bad_type" and isinstance(error, TypeError)
    assert contents(service.store) == before and service.store.get("m2") is None


def test_rules_and_setup_as_mappings_still_work(hosted: tuple[MatchService, Hosted]) -> None:
    service, _ = hosted
    again = service.create("duelo", SEATS, rules={"hand_limit": 40}, setup={}, seed=3, match_id="m2")
    assert again.game == "duelo" and service.info("m2")["rules"]["hand_limit"] == 40
    assert service.create("duelo", SEATS, rules=None, setup=None, match_id="m3").id == "m3"


@pytest.mark.parametrize("store_argument", [1.5, None, "store", {}, object(), MemoryMatchStore])
def test_a_service_needs_a_store(store_argument: Any) -> None:
    error = refused(lambda: MatchService(store_argument, KEY), InvalidTypeError, "store")
    assert error.code == "bad_type"


# -- the stores ---------------------------------------------------------------------------------------------

def _record(match_id: Any = "m9", step: Any = 0, save: Any = "", data: Any = "") -> StoredMatch:
    return StoredMatch(match_id, step, save, data)


@pytest.mark.parametrize(("call", "names"), [
    (lambda store: store.get([1]), "match_id"),
    (lambda store: store.get(None), "match_id"),
    (lambda store: store.get(1), "match_id"),
    (lambda store: store.delete([1]), "match_id"),
    (lambda store: store.delete(b"m1"), "match_id"),
    (lambda store: store.create(1.5), "match"),
    (lambda store: store.create(None), "match"),
    (lambda store: store.create({"id": "m9"}), "match"),
    (lambda store: store.create(_record(match_id=[1])), "match.id"),
    (lambda store: store.create(_record(step="0")), "match.step"),
    (lambda store: store.create(_record(save=None)), "match.save"),
    (lambda store: store.create(_record(data=b"{}")), "match.data"),
    (lambda store: store.replace(1.5, 0), "match"),
    (lambda store: store.replace(_record(match_id={"m1"}), 0), "match.id"),
    (lambda store: store.replace(_record(match_id="m1"), "0"), "expected_step"),
    (lambda store: store.replace(_record(match_id="m1"), None), "expected_step"),
])
def test_a_store_refuses_arguments_of_the_wrong_type(hosted: tuple[MatchService, Hosted],
                                                     call: Callable[[Any], object], names: str) -> None:
    service, _ = hosted
    store = service.store
    before = contents(store)
    error = refused(lambda: call(store), InvalidTypeError, names)
    assert error.code == "bad_type"
    assert contents(store) == before
    service.update("m1", 0)  # the match is still there, whole


def test_a_bare_memory_store_refuses_too() -> None:
    store = MemoryMatchStore()
    refused(lambda: store.create(1.5), InvalidTypeError, "match")  # type: ignore[arg-type]
    refused(lambda: store.get([1]), InvalidTypeError, "match_id")  # type: ignore[arg-type]
    assert len(store) == 0
    assert store.create(_record()) and store.get("m9") == _record() and store.replace(_record(step=1), 0)
