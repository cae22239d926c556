"""A small game service on ``fourcards.hosting``: every registered game, no code of any one game.

Each request loads the match from SQLite (a signed snapshot), applies one action,
lets the bots play until a person is to act, stores the match with a
compare-and-swap on its step, and answers the seat what changed in its view.
The service keeps nothing in memory between requests: run as many processes as
you like on one database file. ``docs/embedding.md`` explains the pattern.

    pip install "fourcards[server]"
    python examples/embed_starlette.py --port 8000 --db matches.db --key "a long secret"

The API (JSON; a seat proves itself with ``Authorization: Bearer <its token>``):

- ``GET /games``: every game: name, title, seats, bot kinds, rule options.
- ``POST /matches`` ``{"game", "seats": [null | "bot kind", ...], "rules"?, "seed"?}``:
  201 ``{"match", "game", "step", "seats", "tokens": {seat: token}}`` (a token for each person).
- ``GET /matches/{id}``: public facts (whose turn, scores, result).
- ``GET /matches/{id}/updates?seat=N&since=STEP``: the seat's update since STEP
  (without ``since``: its whole view; without ``seat``: a spectator's, no token).
- ``POST /matches/{id}/actions`` ``{"seat", "action", "expected_step"?, "since"?}``:
  the action (its integer or text) and the seat's update since ``since`` (default:
  ``expected_step``). Two requests racing on one step: one is applied, the other
  gets 409 ``stale``.

Every error is ``{"error": {"code", "reason"}}`` with the status
``fourcards.hosting.http_status`` gives its code (``docs/engine.md`` lists them).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from fourcards.errors import BadTokenError, FourCardsError
from fourcards.games import GAMES
from fourcards.hosting import MatchService, SQLiteMatchStore, error_body, http_status

MAX_BODY = 64 * 1024  # a rules object may carry a deck of its own (about 8 KB)


def catalogue() -> list[dict[str, Any]]:
    """Every registered game, as a client chooses one."""
    from dataclasses import fields

    games = []
    for entry in GAMES.values():
        info = entry.new_game().info()
        options = [{"name": f.name, "default": f.default if isinstance(f.default, (int, str, bool, float)) else None}
                   for f in fields(entry.game_class.rules_type)]
        games.append({"name": entry.name, "title": entry.title, "min_players": info.min_players,
                      "max_players": info.max_players, "bots": list(entry.available_bots), "rules": options})
    return games


def create_app(db: str, key: str) -> Starlette:
    """The service on the SQLite file ``db``; ``key`` signs the saves and the seat tokens."""
    service = MatchService(SQLiteMatchStore(db), key)
    games = catalogue()

    def answer(data: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(data, status_code=status)

    def refuse(error: FourCardsError) -> JSONResponse:
        return answer(error_body(error), http_status(error))

    async def body_of(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise FourCardsError(f"the body is longer than {MAX_BODY} bytes")
        try:
            data = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            raise FourCardsError("the body is not JSON") from None
        if not isinstance(data, dict):
            raise FourCardsError("the body must be a JSON object")
        return data

    def whole(value: Any, name: str, optional: bool = False) -> int | None:
        """A whole number of the request (JSON gives floats and text too)."""
        if value is None and optional:
            return None
        if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12:
            return int(value)
        if type(value) is not int or not 0 <= value < 2**53:
            raise FourCardsError(f"{name} must be a whole number 0..2**53-1, not {value!r:.40}")
        return value

    def token_of(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise BadTokenError("send the seat's token: Authorization: Bearer <token>")
        return token.strip()

    async def list_games(request: Request) -> JSONResponse:
        return answer({"games": games})

    async def create(request: Request) -> JSONResponse:
        try:
            body = await body_of(request)
            game, seats, rules = body.get("game"), body.get("seats"), body.get("rules") or {}
            if not isinstance(game, str) or not isinstance(rules, dict) or not isinstance(seats, list):
                raise FourCardsError("give 'game' (a name), 'seats' (a list) and optionally 'rules' (an object)")
            if not all(kind is None or isinstance(kind, str) for kind in seats):
                raise FourCardsError("each seat is null (a person) or a bot kind")
            seed = whole(body.get("seed"), "seed", optional=True)
            hosted = await run_in_threadpool(service.create, game, seats, rules=rules, seed=seed)
        except FourCardsError as error:
            return refuse(error)
        tokens = {str(seat): service.seat_token(hosted.id, seat) for seat, kind in enumerate(hosted.seats)
                  if kind is None}
        return answer({"match": hosted.id, "game": hosted.game, "step": hosted.step, "seats": list(hosted.seats),
                       "tokens": tokens}, 201)

    async def info(request: Request) -> JSONResponse:
        try:
            return answer(await run_in_threadpool(service.info, request.path_params["match"]))
        except FourCardsError as error:
            return refuse(error)

    async def updates(request: Request) -> JSONResponse:
        match = request.path_params["match"]
        query = request.query_params
        try:
            seat = whole(query.get("seat"), "seat", optional=True)
            since = whole(query.get("since"), "since", optional=True)
            if seat is not None:
                service.check_token(match, seat, token_of(request))
            update = await run_in_threadpool(service.update, match, seat, since)
        except FourCardsError as error:
            return refuse(error)
        return answer(update.as_dict())

    async def act(request: Request) -> JSONResponse:
        match = request.path_params["match"]
        try:
            body = await body_of(request)
            seat = whole(body.get("seat"), "seat")
            assert seat is not None
            service.check_token(match, seat, token_of(request))
            action = body.get("action")
            if not isinstance(action, str):
                action = whole(action, "action")
            expected = whole(body.get("expected_step"), "expected_step", optional=True)
            since = whole(body.get("since"), "since", optional=True)
            update = await run_in_threadpool(service.act, match, seat, action, expected_step=expected, since=since)
        except FourCardsError as error:
            return refuse(error)
        return answer(update.as_dict())

    return Starlette(routes=[
        Route("/games", list_games),
        Route("/matches", create, methods=["POST"]),
        Route("/matches/{match}", info),
        Route("/matches/{match}/updates", updates),
        Route("/matches/{match}/actions", act, methods=["POST"]),
    ])


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="A game service on fourcards.hosting (every registered game).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default="matches.db", help="the SQLite file (created when missing)")
    parser.add_argument("--key", default=os.environ.get("FOURCARDS_KEY"),
                        help="the secret that signs saves and seat tokens (default: $FOURCARDS_KEY; without "
                             "either, a new one each start, and the stored matches no longer load)")
    args = parser.parse_args(argv)
    key = args.key or secrets.token_urlsafe(32)
    uvicorn.run(create_app(args.db, key), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
