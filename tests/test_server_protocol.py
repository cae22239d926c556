"""The server's message parsing and per-seat views (no server extra needed)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from fourcards.games import GAMES, get_game
from fourcards.server.protocol import (
    ERROR_CODES, MAX_MESSAGE_BYTES, Act, Event, Hint, Join, Ping, ProtocolError, Watch, error_message,
    parse_client_message,
)
from fourcards.server.speedster import parse_zangle_text

EVENTS = frozenset({"call", "hit"})


def test_valid_messages_parse() -> None:
    assert parse_client_message('{"type": "join", "table": "t1", "token": "x"}') == Join("t1", "x")
    assert parse_client_message(b'{"type": "act", "id": "a", "version": 0, "action": 5}') == Act("a", 0, 5)
    call = parse_client_message('{"type": "call", "id": "c", "version": 2, "zangle": "2(own) = 1(own) + 1(centre)"}',
                                EVENTS)
    assert call == Event("call", "c", 2, (("zangle", "2(own) = 1(own) + 1(centre)"),))
    assert isinstance(call, Event) and call.text("zangle") == "2(own) = 1(own) + 1(centre)"
    hit = parse_client_message('{"type": "hit", "id": "h", "version": 2}', EVENTS)
    assert hit == Event("hit", "h", 2) and isinstance(hit, Event)
    hit.no_fields()
    assert parse_client_message('{"type": "hint"}') == Hint(None)
    assert parse_client_message('{"type": "ping", "extra": [1, 2]}') == Ping()
    assert parse_client_message('{"type": "watch", "table": "t1"}') == Watch("t1")
    assert parse_client_message('{"type": "watch", "table": "t1", "invite": "s"}') == Watch("t1", "s")


@pytest.mark.parametrize("raw,code", [
    ("{", "bad_json"), ("[]", "bad_json"), ("null", "bad_json"), (b"\x80\x81", "bad_json"),
    ("x" * (MAX_MESSAGE_BYTES + 1), "too_large"), ('{"type": "ACT"}', "bad_message"),
    ('{"type": 3}', "bad_message"), ('{"type": "act", "id": "a", "version": -1, "action": 0}', "bad_message"),
    ('{"type": "act", "id": "a", "version": 0, "action": 2147483648}', "bad_message"),
    ('{"type": "act", "id": "a", "version": 0, "action": "5"}', "bad_message"),
    ('{"type": "act", "id": "a", "version": 0.0, "action": 5}', "bad_message"),
    ('{"type": "act", "id": "", "version": 0, "action": 5}', "bad_message"),
    ('{"type": "join", "table": "t", "token": ""}', "bad_message"),
    ('{"type": "hint", "id": 5}', "bad_message"),
    ('{"type": "watch"}', "bad_message"), ('{"type": "watch", "table": "t", "invite": 5}', "bad_message"),
    ('{"type": "watch", "table": "t", "invite": ""}', "bad_message"),
    ("[" * 100_000, "too_large"), ("[" * 2000 + "]" * 2000, "bad_json"),
])
def test_bad_messages_get_a_code(raw: str | bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(raw)
    assert caught.value.code == code and code in ERROR_CODES
    message = error_message(caught.value)
    assert message["type"] == "error" and message["code"] == code and message["reason"]


@pytest.mark.parametrize("raw", [
    '{"type": "call", "id": "c", "version": 2, "zangle": "x"}',  # no table takes events here
    '{"type": "hit", "id": "h", "version": 2}',
])
def test_events_are_refused_unless_a_table_takes_them(raw: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(raw)
    assert caught.value.code == "bad_message"


@pytest.mark.parametrize("raw", [
    '{"type": "call", "id": "c", "version": 2, "zangle": ["x"]}',
    '{"type": "call", "id": "c", "version": 2, "zangle": true}',
    '{"type": "call", "id": "c", "version": 2, "zangle": "' + "x" * 201 + '"}',
    '{"type": "call", "id": "c", "version": 2, "n": -1}',
    '{"type": "call", "version": 2}',
])
def test_bad_events_get_a_code(raw: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(raw, EVENTS)
    assert caught.value.code == "bad_message"


def test_an_event_refuses_fields_its_master_does_not_take() -> None:
    hit = parse_client_message('{"type": "hit", "id": "h", "version": 2, "zangle": "x"}', EVENTS)
    assert isinstance(hit, Event)
    with pytest.raises(ProtocolError, match="takes no fields"):
        hit.no_fields()
    call = parse_client_message('{"type": "call", "id": "c", "version": 2, "zangle": "x", "more": 1}', EVENTS)
    assert isinstance(call, Event)
    with pytest.raises(ProtocolError, match="takes only 'zangle'"):
        call.text("zangle")


def test_an_error_names_the_message_id_when_it_is_known() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message('{"type": "act", "id": "m7", "version": 1, "action": true}')
    assert error_message(caught.value)["id"] == "m7"


def test_zangle_notation() -> None:
    assert parse_zangle_text("5a(own) = Z(centre) + 1(own)") == (("5a", "own"), [("Z", "centre"), ("1", "own")])
    for bad in ("5a = 1 + 2", "5a(own)", "5a(table) = 1(own) + 1(own)", ""):
        with pytest.raises(ProtocolError):
            parse_zangle_text(bad)


def _play(name: str, steps: int, **rules: Any) -> Any:
    state = get_game(name).new_game(**rules).new_match(seed=11)
    rng = random.Random(2)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", list(GAMES))
def test_views_show_the_seats_own_hand_and_every_record_reads(name: str) -> None:
    state = _play(name, 120)
    game = state.game
    for seat in range(game.num_players):
        view = game.observation_view(state.observation(seat))
        assert view == state.view(seat)
        json.dumps(view)  # JSON data only
        assert view["seat"] == seat
        if "hand" in view:
            assert all(isinstance(card, str) for card in view["hand"])
    for record in state.history:
        text = game.record_text(record)
        assert text and not text.startswith(type(record).__name__ + ":"), text  # a sentence, not a dump
        view = game.record_view(record)
        assert view["text"] == text and json.loads(json.dumps(view)) == view


def test_a_gang_of_four_view_holds_no_other_hand() -> None:
    state = _play("gang-of-four", 10)
    views = [state.view(s) for s in range(4)]
    for seat, view in enumerate(views):
        assert view["hand"] == [str(c) for c in state.hand(seat)]
        text = json.dumps(view)
        for other in range(4):
            if other != seat:
                assert json.dumps(views[other]["hand"]) not in text


def _tokens(value: Any) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9]+", json.dumps(value)))


@pytest.mark.parametrize("name", list(GAMES))
def test_the_spectator_view_holds_no_seats_private_fields(name: str) -> None:
    """At every step of a random match: the spectator view is seat 0's view without the
    game's private fields, its legal options and its seat, and no token of any seat's
    private fields appears in it unless a public record has named it."""
    game = get_game(name).new_game()
    state = game.new_match(seed=5)
    rng = random.Random(6)
    private = type(game).private_view_fields
    public: set[str] = set()
    for _ in range(200):
        view = state.spectator_view()
        assert view == game.spectator_view(state) and view["seat"] is None
        assert not set(private) & set(view) and not any(key.startswith("legal_") for key in view)
        own = state.view(0)
        assert {k: v for k, v in own.items() if k not in private and k != "seat"} == \
            {k: v for k, v in view.items() if k != "seat"}
        public |= {t for r in state.history for t in _tokens(game.record_view(r))}
        hidden = set().union(*(_tokens(state.view(p).get(f) or []) for p in range(game.num_players) for f in private))
        assert not (_tokens(view) & (hidden - public)), name
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))


def test_join_and_watch_name_their_protocol() -> None:
    assert parse_client_message('{"type": "join", "table": "t", "token": "x", "protocol": 2}') == Join("t", "x", 2)
    assert parse_client_message('{"type": "watch", "table": "t"}') == Watch("t", None, 1)
    assert parse_client_message('{"type": "watch", "table": "t", "protocol": 1}') == Watch("t", None, 1)
    for bad in ("0", "3", '"2"', "true", "null", "2.0"):
        with pytest.raises(ProtocolError, match="protocol") as caught:
            parse_client_message(f'{{"type": "join", "table": "t", "token": "x", "protocol": {bad}}}')
        assert caught.value.code == "bad_message"


def test_the_error_table_of_docs_server_lists_every_code_once() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parent.parent / "docs" / "server.md").read_text(encoding="utf-8")
    table = docs.split("| code | meaning |", 1)[1].split("\n\n", 1)[0]
    assert sorted(re.findall(r"^\| `([a-z_]+)` \|", table, re.M)) == sorted(ERROR_CODES)
