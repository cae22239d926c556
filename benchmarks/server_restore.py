"""How long the server takes to bring back a long match at start: restored from its snapshot
against replayed from its log, in one run.

    python benchmarks/server_restore.py            # Gang of Four at 3,000 actions; Duelo, Four Pack to their end
    python benchmarks/server_restore.py --quick    # shorter matches, fewer rounds

Each match is played by bots (Gang of Four's greedy, the others' random: their longest
matches) and stored in an ``SQLiteStore`` as the server
stores a turn table (its record, its last version: the signed snapshot and the host's
data, and its log: one entry an action, the person's with a message id). Then, in
rounds that interleave the two:

- **restore** (the server now): ``load()`` (the table and its version: nothing of its
  log) and ``TurnTable.restore`` (the snapshot loaded with the key: no replay); the log's
  message ids are read when the table's first action comes (timed apart, ``ids``);
- **replay** (the server before snapshots, and still for a table without one): the
  table and its whole log read, and ``TurnTable.replay`` (every action applied again).

Each subject's time is its median over the rounds. Needs the ``server`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fourcards.games import get_game
from fourcards.hosting.store import LoggedAction, StoredMatch
from fourcards.server.store import SeatRecord, SQLiteStore, StoredTable, TableRecord
from fourcards.server.tables import TurnTable, make_table

KEY = b"the benchmark's signing key, 32 b"


def played(game_name: str, rules: dict[str, Any], seed: int, limit: int) -> tuple[Any, list[LoggedAction]]:
    """A match of the game's fast bots (seat 0 a 'person' whose actions carry message ids), to
    its end or ``limit`` actions."""
    entry = get_game(game_name)
    game = entry.new_game(**rules)
    kind = "greedy" if "greedy" in entry.available_bots else "random"  # random: the longest matches
    bots = [entry.new_bot(kind, game, seed=seat) for seat in range(game.num_players)]
    state = game.new_match(seed)
    log = []
    rng = random.Random(seed)
    while not state.is_terminal and state.step < limit:
        seat = state.current_player
        legal = state.legal_actions()
        action = int(bots[seat].choose(state.observation(seat), legal)) if rng.random() < 0.9 else rng.choice(legal)
        log.append(LoggedAction(state.step, seat, action, seat != 0, f"m{state.step}" if seat == 0 else None))
        state.apply(action, seat)
    return state, log


async def store_match(store: SQLiteStore, table_id: str, game_name: str, rules: dict[str, Any], seed: int,
                      limit: int) -> tuple[TableRecord, int]:
    """A table of ``game_name`` stored with its whole match, as the server leaves it."""
    state, log = played(game_name, rules, seed, limit)
    players = state.game.num_players
    seats = (SeatRecord("human", "p0"),) + tuple(SeatRecord("bot", "b", "greedy") for _ in range(players - 1))
    record = TableRecord(table_id, game_name, rules, seed, seats, created=time.time())
    table = make_table(record, store, None, 0.0, lambda text: None, KEY)  # type: ignore[arg-type]
    assert isinstance(table, TurnTable)
    await store.create_table(record, table.first_version())
    table.replay([_entry(a) for a in log])
    last = StoredMatch(table_id, state.step, table._writer.save(table.state),
                       _data(table), tuple(log))
    assert await store.replace_async(last, 0)
    return record, state.step


def _entry(action: LoggedAction) -> Any:
    from fourcards.server.store import LogEntry

    return LogEntry(action.step, action.seat, action.message, action.action)


def _data(table: TurnTable) -> str:
    from fourcards.server.tables import _data_text

    return _data_text(table.data, table._records)


def restore(store: SQLiteStore, table_id: str) -> TurnTable:
    (stored,) = [s for s in store.load() if s.table.id == table_id]
    table = make_table(stored.table, store, None, 0.0, lambda text: None, KEY)  # type: ignore[arg-type]
    assert isinstance(table, TurnTable) and stored.match is not None
    table.restore(stored.match)
    return table


def replay(store: SQLiteStore, record: TableRecord) -> TurnTable:
    stored = StoredTable(record, store.read_log(record.id))
    table = make_table(stored.table, store, None, 0.0, lambda text: None, KEY)  # type: ignore[arg-type]
    assert isinstance(table, TurnTable)
    table.replay(stored.log)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="shorter matches, fewer rounds")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of the two (default 9; 3 with --quick)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 9)
    long = 600 if args.quick else 3000
    matches = [("gang-of-four", {"players": 4, "target_score": 100_000}, long),
               ("duelo", {"players": 2}, long), ("four-pack", {"players": 4}, long)]
    folder = Path(tempfile.mkdtemp(prefix="fourcards-restore-"))
    store = SQLiteStore(folder / "tables.db")
    rows = []
    try:
        for number, (name, rules, limit) in enumerate(matches):
            record, steps = asyncio.run(store_match(store, f"t{number}", name, rules, number + 1, limit))
            restored: list[float] = []
            replayed: list[float] = []
            for round_ in range(rounds):
                for label in (("restore", "replay") if round_ % 2 == 0 else ("replay", "restore")):
                    began = time.perf_counter()
                    table = restore(store, record.id) if label == "restore" else replay(store, record)
                    elapsed = time.perf_counter() - began
                    (restored if label == "restore" else replayed).append(elapsed)
                    assert table.state.step == steps
            first, second = restore(store, record.id), replay(store, record)
            assert first.state == second.state and first.data["memory"] == second.data["memory"]
            ids: list[float] = []
            for _ in range(rounds):
                began = time.perf_counter()
                asyncio.run(first._read_ids(None))
                ids.append(time.perf_counter() - began)
            assert first.applied == second.applied
            rows.append((name, steps, statistics.median(restored), statistics.median(replayed), statistics.median(ids)))
    finally:
        store.close()
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    print(f"server restore: one table at start, restored from its snapshot vs replayed from its log; "
          f"median of {rounds} rounds; Python {platform.python_version()}, {os.cpu_count()} cores")
    print(f"  {'game':<14}{'actions':>8}{'restore':>12}{'replay':>12}{'replay / restore':>18}"
          f"{'ids, at the first action':>26}")
    for name, steps, a, b, c in rows:
        print(f"  {name:<14}{steps:>8}{a * 1e3:>10.2f} ms{b * 1e3:>10.2f} ms{b / a:>17.1f}x{c * 1e3:>23.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
