"""Serial and parallel tasks: the same results through one interface; a pool process makes its worker once."""

from __future__ import annotations

import os

from generator.tasks import ParallelTasks, SerialTasks, tasks


class _Counting:
    """A worker that answers with its process, itself and how many items it has taken."""

    def __init__(self) -> None:
        self.taken = 0

    def __call__(self, item: int) -> tuple[int, int, int, int]:
        self.taken += 1
        return item * item, os.getpid(), id(self), self.taken


def test_serial_and_parallel_tasks_give_the_same_results() -> None:
    with tasks(1, _Counting) as serial:
        assert isinstance(serial, SerialTasks)
        in_order = [answer[0] for answer in serial.run(range(40))]
    with tasks(2, _Counting) as parallel:
        assert isinstance(parallel, ParallelTasks)
        assert [answer[0] for answer in parallel.run(range(40))] == in_order == [i * i for i in range(40)]
        assert sorted(answer[0] for answer in parallel.run_unordered(range(40))) == in_order


def test_serial_tasks_run_here_with_one_worker() -> None:
    with tasks(1, _Counting) as serial:
        answers = list(serial.run(range(5)))
    assert {(pid, worker) for _, pid, worker, _ in answers} == {(os.getpid(), answers[0][2])}
    assert [taken for *_, taken in answers] == [1, 2, 3, 4, 5]


def test_each_pool_process_makes_its_worker_once() -> None:
    with tasks(2, _Counting) as parallel:
        answers = list(parallel.run(range(60)))
    by_process: dict[int, list[tuple[int, int]]] = {}
    for _, pid, worker, taken in answers:
        by_process.setdefault(pid, []).append((worker, taken))
    assert os.getpid() not in by_process
    for seen in by_process.values():
        assert len({worker for worker, _ in seen}) == 1  # one worker per process, kept between items
        assert sorted(taken for _, taken in seen) == list(range(1, len(seen) + 1))
