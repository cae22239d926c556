"""Load test of two game server processes sharing one PostgreSQL database, with a
``kill -9`` of one of them in the middle.

    python benchmarks/server_cluster_load.py                  # 250 tables x 4 clients, think 0
    python benchmarks/server_cluster_load.py --tables 8 --think 0.05 --lease-seconds 2
    python benchmarks/server_cluster_load.py --db postgresql://user@host:port/db

Needs the ``server`` and ``postgres`` extras, and PostgreSQL: ``--db URL`` (a
database it may fill), else a throwaway cluster from the installed ``initdb``
(``tests/pg_cluster.py``; as root, run as the ``postgres`` user) on loopback,
removed at the end.

It starts two ``fourcards serve`` processes on 127.0.0.1 (two ports, each
advertising its URL), creates the Gang of Four tables over HTTP (alternately on
each process, so each holds half of them), and connects one WebSocket client a
seat, all at once, each to either process at random: a client that joins
through the process not holding its table is told ``table_elsewhere`` with the
owner's URL and connects there. Every client answers its turns with a random
legal action (2% sent twice). Once about half of the expected actions are
acknowledged, the first process gets ``kill -9``: its clients connect to the
other process, which takes the tables over when their leases expire (its lease
sweep, or their clients' joins) and they re-send what was not acknowledged. It
stops by itself: when every table has ended, or after ``--timeout``.

Printed: actions/s, act -> ack latency (p50, p99), the takeover time (from the
kill to each of the killed process's tables acknowledging again: median and
slowest) and the check: each table's stored match (seed and actions read from
PostgreSQL) must equal the replay of what its clients saw acknowledged, with
no stored client message twice and the winners and scores of every ``end``.
The exit status says whether anything was lost or doubled or a table did not
finish; timings are reported, not asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
from server_load import (  # noqa: E402
    Run, Server, expected_length, free_port, loads, percentile, post, run_clients,
)

from fourcards.games import get_game  # noqa: E402


class Process(Server):
    """``fourcards serve`` on 127.0.0.1 and a free port, on the shared database."""

    def __init__(self, url: str, lease: float) -> None:
        super().__init__(url, free_port(), ("--lease-seconds", str(lease)))
        self.url, self.lease = url, lease


@dataclass
class Cluster:
    """What the clients saw of the processes (beyond :class:`Run`)."""

    killed_at: float | None = None  # time.perf_counter() of the kill -9
    back: dict[str, float] = field(default_factory=dict)  # table -> its first ack after the kill
    redirects: int = 0  # table_elsewhere answers
    server_errors: int = 0  # actions refused with server_error (sent again)
    running_at_kill: list[str] = field(default_factory=list)  # the killed process's tables not over then


async def seat_client(urls: list[str], table: str, token: str, run: Run, cluster: Cluster, rng: random.Random,
                      retry: float, think: float, deadline: float) -> None:
    pending: dict[str, tuple[dict[str, Any], int, float]] = {}
    acted: set[int] = set()
    acked = run.acked.setdefault(table, {})
    ended = False  # the end was received (and counted)
    current = rng.choice(urls)
    failed: str | None = None  # the URL that last refused the connection
    first = True
    dumps = __import__("json").dumps
    while time.monotonic() < deadline:
        try:
            async with connect(current, max_size=2**22, open_timeout=30, ping_interval=None) as ws:
                await ws.send(dumps({"type": "join", "table": table, "token": token, "protocol": PROTOCOL}))
                opening = loads(await ws.recv())
                if opening["type"] == "error" and opening["code"] == "table_elsewhere":
                    cluster.redirects += 1
                    owner = opening.get("owner")
                    target = f"ws{owner[4:]}/ws" if isinstance(owner, str) and owner.startswith("http") else None
                    if target is not None and target != failed and target != current:
                        current = target  # go to the owner at once
                    else:  # its owner is gone: wait for the lease to expire here
                        await asyncio.sleep(min(0.5, float(opening.get("retry_after", 0.5))) + 0.05)
                    continue
                run.connected += 1
                run.peak = max(run.peak, run.connected)
                if not first:
                    run.reconnects += 1
                first = False
                try:
                    for message, _, _ in list(pending.values()):  # not acknowledged: sent again
                        await ws.send(dumps(message))
                    async for raw in ws:
                        message = loads(raw)
                        kind = message["type"]
                        if kind in ("state", "update"):  # an update's legal actions and version are whole
                            version = message["version"]
                            if message["legal_actions"] and not message["terminal"] and version not in acted:
                                acted.add(version)
                                if think > 0:
                                    await asyncio.sleep(rng.uniform(0, 2 * think))
                                action = rng.choice(message["legal_actions"])["action"]
                                act = {"type": "act", "id": f"v{version}", "version": version, "action": action}
                                pending[act["id"]] = (act, action, time.perf_counter())
                                run.actions_sent += 1
                                await ws.send(dumps(act))
                                if rng.random() < retry:
                                    run.retries += 1
                                    await ws.send(dumps(act))
                        elif kind == "ack":
                            sent = pending.pop(message["id"], None)
                            if sent is None:
                                continue
                            _, action, began = sent
                            now = time.perf_counter()
                            run.latencies.append(now - began)
                            if cluster.killed_at is not None and now > cluster.killed_at:
                                cluster.back.setdefault(table, now)
                            if acked.get(message["version"], action) != action:
                                run.conflicts += 1
                            acked[message["version"]] = action
                            if ended and not pending:
                                return
                        elif kind == "end":
                            if not ended:
                                run.ends.setdefault(table, []).append(message)
                                ended = True
                            if not pending:
                                return
                            # An action sent again after a reconnect may be the match's last one,
                            # stored before the crash: its ack comes after this end.
                        elif kind == "error" and message.get("id") in pending:
                            if message["code"] == "server_error":
                                cluster.server_errors += 1  # sent again after the reconnect
                            elif message["code"] == "rate_limited":
                                await asyncio.sleep(0.2)
                                await ws.send(dumps(pending[message["id"]][0]))
                finally:
                    run.connected -= 1
        except (OSError, WebSocketException, asyncio.TimeoutError):
            failed = current
            others = [u for u in urls if u != current]
            current = rng.choice(others) if others else current
            await asyncio.sleep(0.1)


def check(url: str, run: Run, tables: list[str], players: int, target: int) -> dict[str, int]:
    """Each table's stored match (read from PostgreSQL) against what its clients saw."""
    import psycopg

    game = get_game("gang-of-four").new_game(players=players, target_score=target)
    result = {"tables ended": 0, "lost": 0, "doubled": 0, "unacknowledged": 0, "mismatched": 0,
              "lost across the crash": 0}
    with psycopg.connect(url) as db:
        for table in tables:
            seed = int(db.execute("SELECT seed FROM tables WHERE id=%s", (table,)).fetchone()[0])  # type: ignore[index]
            rows = db.execute("SELECT action, seat, client_id FROM log WHERE table_id=%s ORDER BY idx",
                              (table,)).fetchall()
            stored = [a for a, _, _ in rows]
            ids = [(s, c) for _, s, c in rows if c is not None]
            result["doubled"] += len(ids) - len(set(ids))
            acked = run.acked.get(table, {})
            result["lost"] += sum(1 for v, a in acked.items() if v > len(stored) or stored[v - 1] != a)
            if run.acks_before_crash is not None:
                before = run.acks_before_crash.get(table, {})
                result["lost across the crash"] += sum(1 for v, a in before.items()
                                                       if v > len(stored) or stored[v - 1] != a)
            ends = run.ends.get(table, [])
            if len(ends) != players:
                continue
            result["tables ended"] += 1
            missing = [v for v in range(1, len(stored) + 1) if v not in acked]
            result["unacknowledged"] += len(missing)
            if missing:
                print(f"  table {table}: stored {len(stored)} actions, versions never acknowledged {missing} "
                      f"(stored entries {[rows[v - 1] for v in missing]})", flush=True)
            seen = [acked.get(v) for v in range(1, max(acked, default=0) + 1)]
            if None in seen:
                result["mismatched"] += 1
                continue
            replay = game.replay(seed, [a for a in seen if a is not None])
            truth = game.replay(seed, stored)
            if not (replay == truth and replay.is_terminal and all(
                    e["winners"] == list(replay.winners) and e["scores"] == list(replay.scores)
                    and e["version"] == replay.step for e in ends)):
                result["mismatched"] += 1
    return result


async def play(processes: list[Process], tables: int, players: int, target: int, seed: int, timeout: float,
               think: float, kill: bool) -> tuple[Run, Cluster, list[str], list[str], float]:
    seats = [{"kind": "human"}] * players

    def make(number: int) -> tuple[str, list[str]]:
        base = processes[number % len(processes)].http  # alternately: each process holds half
        table = post(base + "/api/tables", {"game": "gang-of-four", "rules": {"players": players,
                                                                            "target_score": target},
                                            "seats": seats})["id"]
        return table, [post(f"{base}/api/tables/{table}/seats/{s}", {})["token"] for s in range(players)]

    with ThreadPoolExecutor(8) as pool:
        made = list(pool.map(make, range(tables)))
    killed_tables = [t for number, (t, _) in enumerate(made) if number % len(processes) == 0]
    run, cluster = Run(), Cluster()
    deadline = time.monotonic() + timeout
    rng = random.Random(seed)
    urls = [p.ws for p in processes]
    began = time.perf_counter()
    client_began = time.process_time()
    cpu_began = [p.cpu_seconds() for p in processes]
    tasks = [asyncio.create_task(seat_client(urls, table, token, run, cluster, random.Random(rng.getrandbits(64)),
                                             0.02, think, deadline))
             for table, tokens in made for token in tokens]
    if kill:
        half = tables * expected_length(players, target) // 2
        while time.monotonic() < deadline and sum(len(a) for a in run.acked.values()) < half:
            await asyncio.sleep(0.05)
        run.acks_before_crash = {t: dict(a) for t, a in run.acked.items()}
        cluster.running_at_kill = [t for t in killed_tables if not run.ends.get(t)]
        run.server_cpu += processes[0].cpu_seconds() - cpu_began[0]
        await asyncio.to_thread(processes[0].kill9)
        cluster.killed_at = time.perf_counter()
        print(f"  kill -9 of process 1 after {sum(len(a) for a in run.acks_before_crash.values())} acknowledged "
              f"actions (it held {len(killed_tables)} tables)", flush=True)
    _, late = await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    for task in late:
        task.cancel()
    await asyncio.gather(*late, return_exceptions=True)
    for number, process in enumerate(processes):
        if not (kill and number == 0):
            run.server_cpu += process.cpu_seconds() - cpu_began[number]
    run.client_cpu = time.process_time() - client_began
    return run, cluster, [t for t, _ in made], killed_tables, time.perf_counter() - began


#: The protocol the load clients speak (``--protocol``): 2, the page's (updates), by default.
PROTOCOL = 2


def main(argv: list[str] | None = None) -> int:
    global PROTOCOL
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=None, help="a PostgreSQL URL to use (default: a throwaway cluster)")
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--target-score", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a player pauses before it acts (uniform 0..2x; default 0: at once)")
    parser.add_argument("--lease-seconds", type=float, default=5.0, help="the servers' lease (default 5)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds the run may take at most")
    parser.add_argument("--no-kill", action="store_true", help="no kill -9 (both processes to the end)")
    parser.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                        help="the protocol the clients speak: 2 (updates, the page's; default) or 1 (whole states)")
    args = parser.parse_args(argv)
    PROTOCOL = args.protocol
    if not 1 <= args.tables <= 1000:
        parser.error("--tables must be 1..1000")
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    except (ImportError, ValueError, OSError):
        pass
    cluster_db = None
    url = args.db
    if url is None:
        from tests.pg_cluster import Cluster as PostgresCluster

        cluster_db = PostgresCluster(fsync=True).start()
        url = cluster_db.database()
    processes = [Process(url, args.lease_seconds) for _ in range(2)]
    try:
        for process in processes:
            process.start()
        print(f"server cluster load: 2 server processes on one PostgreSQL database, {args.tables} Gang of Four "
              f"tables x {args.players} WebSocket clients, target score {args.target_score}, think time "
              f"{args.think} s, lease {args.lease_seconds} s, loopback, {os.cpu_count()} cores", flush=True)
        run, cluster, tables, killed, seconds = run_clients(play(
            processes, args.tables, args.players, args.target_score, args.seed, args.timeout, args.think,
            not args.no_kill))
    finally:
        for process in processes:
            process.stop()
    checked = check(url, run, tables, args.players, args.target_score)
    if cluster_db is not None:
        cluster_db.stop()
    actions = sum(len(a) for a in run.acked.values())
    back = sorted(cluster.back[t] - cluster.killed_at for t in cluster.running_at_kill if t in cluster.back) \
        if cluster.killed_at is not None else []
    lines = [
        f"  tables ended            {checked['tables ended']} / {args.tables}",
        f"  clients connected at once {run.peak}",
        f"  actions acknowledged    {actions} in {seconds:.1f} s = {actions / seconds:.0f} actions/s",
        f"  servers' CPU            {run.server_cpu:.1f} s = {1000 * run.server_cpu / max(1, actions):.2f} ms an "
        f"action (both processes)",
        f"  load clients' CPU       {run.client_cpu:.1f} s (one process, apart from the servers)",
        f"  act -> ack latency      p50 {1000 * percentile(run.latencies, 0.5):.1f} ms, "
        f"p99 {1000 * percentile(run.latencies, 0.99):.1f} ms",
        f"  joins told table_elsewhere {cluster.redirects}; actions refused with server_error and sent again "
        f"{cluster.server_errors}; reconnects {run.reconnects}",
        f"  lost / doubled          {checked['lost']} / {checked['doubled']}",
        f"  stored but never acked  {checked['unacknowledged']} in ended tables",
        f"  stored match != replay of what clients saw: {checked['mismatched']} tables",
    ]
    if cluster.killed_at is not None:
        lines.append(f"  takeover after the kill -9: {len(back)} of the {len(cluster.running_at_kill)} tables it held "
                     f"still in play acknowledging again on the other process, "
                     f"median {percentile(back, 0.5):.2f} s, slowest {back[-1] if back else float('nan'):.2f} s "
                     f"(lease {args.lease_seconds} s)")
        lines.append(f"  acknowledged before the kill -9 and lost: {checked['lost across the crash']}")
    print("\n".join(lines), flush=True)
    unfinished_killed = sum(1 for t in killed if len(run.ends.get(t, [])) != args.players)
    failed = (checked["tables ended"] != args.tables or checked["lost"] or checked["doubled"]
              or checked["mismatched"] or checked["lost across the crash"] or run.conflicts or unfinished_killed)
    print("PASS: every match ended, nothing lost or applied twice" if not failed else "FAIL: see above")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
