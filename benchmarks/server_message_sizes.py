"""What a seat receives over a whole match: protocol 1 (the whole ``state`` after every change,
what the server sent before updates) against protocol 2 (an ``update`` with what changed).

    python benchmarks/server_message_sizes.py             # Duelo and Four Pack, 3 matches each way
    python benchmarks/server_message_sizes.py --matches 1 --games duelo

It starts ``fourcards serve`` on 127.0.0.1 and a free port (a fresh SQLite file, no bot
delay), and for each game plays whole matches of one person against the game's best bots:
the person's client answers each of its turns with a random legal action, speaking one
protocol or the other. Sizes are of the JSON text of every ``state`` or ``update`` the
person got after its join (the join's whole state is not counted: both protocols send
it). Needs the ``server`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from fourcards.games import get_game

GAMES = {"duelo": {"players": 2}, "four-pack": {"players": 4}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def post(url: str, body: Any) -> Any:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


async def one_match(base: str, game: str, protocol: int, seed: int) -> list[int]:
    """The sizes of every state or update the person got after its join, over one match."""
    rules = GAMES[game]
    entry = get_game(game)
    players = entry.new_game(**rules).num_players
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": entry.best_bot}] * (players - 1)
    table = post(base + "/api/tables", {"game": game, "rules": rules, "seats": seats})
    token = post(f"{base}/api/tables/{table['id']}/seats/0", {"name": "p0"})["token"]
    rng = random.Random(seed)
    sizes: list[int] = []
    async with connect(base.replace("http", "ws") + "/ws", max_size=2**24) as ws:
        await ws.send(json.dumps({"type": "join", "table": table["id"], "token": token, "protocol": protocol}))
        first = True
        async for raw in ws:
            message = json.loads(raw)
            kind = message["type"]
            if kind == "end":
                return sizes
            if kind not in ("state", "update"):
                continue
            if first:
                first = False
            else:
                sizes.append(len(raw))
            if message["legal_actions"] and not message["terminal"]:
                action = rng.choice(message["legal_actions"])["action"]
                await ws.send(json.dumps({"type": "act", "id": f"a{message['version']}",
                                          "version": message["version"], "action": action}))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3, help="matches of each game with each protocol (default 3)")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="fourcards-sizes-")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "fourcards", "serve", "--port", str(port), "--db",
                               str(Path(folder) / "tables.db"), "--bot-delay", "0", "--tables-per-client", "1000",
                               "--create-rate", "1000", "--claim-rate", "1000"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/api/games", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)
        rows = []
        for game in args.games:
            for protocol in (1, 2):
                matches = [asyncio.run(one_match(base, game, protocol, seed)) for seed in range(args.matches)]
                sizes = [size for match in matches for size in match]
                rows.append((game, protocol, len(sizes), statistics.median(sizes),
                             sorted(sizes)[int(0.9 * (len(sizes) - 1))], max(sizes),
                             statistics.mean(m[-1] for m in matches), sum(sizes) / len(matches)))
    finally:
        server.terminate()
        server.wait(10)
        for path in Path(folder).iterdir():
            path.unlink()
        os.rmdir(folder)
    print(f"message sizes: one person against the best bots, {args.matches} whole matches a game and protocol "
          "(every state or update after the join, JSON text)")
    print(f"  {'game':<10} {'protocol':<10}{'messages':>9}{'median':>10}{'p90':>10}{'largest':>10}"
          f"{'last':>10}{'a match':>11}")
    for game, protocol, count, median, p90, largest, last, total in rows:
        label = "1 (state)" if protocol == 1 else "2 (update)"
        print(f"  {game:<10} {label:<10}{count:>9}{median / 1024:>8.1f}KB{p90 / 1024:>8.1f}KB{largest / 1024:>8.1f}KB"
              f"{last / 1024:>8.1f}KB{total / 1024:>9.0f}KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
