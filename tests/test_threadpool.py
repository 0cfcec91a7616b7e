"""The elastic thread pool behind the production worker: results and errors like an executor,
never an item waiting while a thread could take it, idle threads ending, shutdown."""

from __future__ import annotations

import threading
import time

import pytest

from app.threadpool import ElasticThreadPool


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


@pytest.fixture
def pools():
    made: list[ElasticThreadPool] = []
    yield lambda *a, **k: made.append(ElasticThreadPool(*a, **k)) or made[-1]
    for pool in made:
        pool.shutdown(wait=True)


def test_results_and_exceptions_reach_the_futures(pools):
    pool = pools(4)
    assert pool.submit(lambda a, b=0: a + b, 2, b=3).result(5) == 5
    failing = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result(5)


def test_long_tasks_up_to_the_limit_all_run_at_once(pools):
    # Like connections that hold a thread for their whole life: each must get its own thread.
    pool = pools(20)
    release = threading.Event()
    running = threading.Semaphore(0)

    def hold() -> None:
        running.release()
        release.wait(10)

    for round_ in range(3):  # threads that became idle are reused, none is left waiting
        futures = [pool.submit(hold) for _ in range(20)]
        for _ in range(20):
            assert running.acquire(timeout=5), f"round {round_}: a task waited for a thread"
        release.set()
        for future in futures:
            future.result(5)
        release.clear()
    assert pool.threads <= 20


def test_idle_threads_are_reused_before_new_ones_start(pools):
    pool = pools(50, idle_timeout=30)
    for _ in range(200):
        pool.submit(time.sleep, 0).result(5)
    assert pool.threads == 1


def test_idle_threads_end_after_the_timeout_and_the_pool_still_works(pools):
    pool = pools(30, idle_timeout=0.3)
    release = threading.Event()
    futures = [pool.submit(release.wait, 10) for _ in range(30)]
    assert wait_for(lambda: pool.threads == 30)
    release.set()
    for future in futures:
        future.result(5)
    assert wait_for(lambda: pool.threads == 0, timeout=10)
    assert not [t for t in threading.enumerate() if t.name.startswith(pool._prefix)]
    assert pool.submit(lambda: "again").result(5) == "again"


def test_submits_racing_with_timeouts_never_strand_an_item(pools):
    # Threads time out constantly (1 ms) while submits arrive from several threads: every item
    # still runs.
    pool = pools(8, idle_timeout=0.001)
    done: list[int] = []
    lock = threading.Lock()

    def record(i: int) -> None:
        with lock:
            done.append(i)

    def submitter(base: int) -> None:
        for i in range(300):
            pool.submit(record, base + i)
            if i % 50 == 0:
                time.sleep(0.005)

    submitters = [threading.Thread(target=submitter, args=(k * 1000,)) for k in range(4)]
    for thread in submitters:
        thread.start()
    for thread in submitters:
        thread.join(30)
    assert wait_for(lambda: len(done) == 1200, timeout=20), len(done)
    assert sorted(done) == sorted(k * 1000 + i for k in range(4) for i in range(300))


def test_shutdown_ends_the_threads_and_refuses_new_work():
    pool = ElasticThreadPool(5, idle_timeout=60)
    for future in [pool.submit(time.sleep, 0.01) for _ in range(5)]:
        future.result(5)
    pool.shutdown(wait=True)
    assert pool.threads == 0
    with pytest.raises(RuntimeError):
        pool.submit(print)
