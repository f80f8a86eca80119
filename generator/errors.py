"""Errors that are the user's to fix: printed as one line each, never as a traceback."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one input file, at one field."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.message}" if self.field else f"{self.path}: {self.message}"


class UserError(Exception):
    """A mistake in the input or the arguments; carries every problem found."""

    exit_code = 1

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = sorted(problems) if isinstance(problems, list) else [problems]
        super().__init__("\n".join(map(str, self.problems)))


class UsageError(UserError):
    """A bad command-line argument; exits with status 2 like argparse."""

    exit_code = 2


class Interrupted(KeyboardInterrupt):
    """A stop signal other than Ctrl-C (SIGTERM), handled like Ctrl-C; the exit status says which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.exit_code = 128 + signum
