"""Command line: ``python -m generator build | check | prices-report | list | serve | estimate | accuracy | import-hf``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .errors import UserError

_SUBCOMMANDS = ("build", "check", "prices_report", "listing", "serve", "estimate", "accuracy", "import_hf")


def parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand registered."""
    root = argparse.ArgumentParser(prog="python -m generator", description=__doc__)
    subparsers = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in _SUBCOMMANDS:
        try:
            module = importlib.import_module(f".cli.{name}", __package__)
        except ModuleNotFoundError as error:
            if error.name != f"{__package__}.cli.{name}":
                raise
            continue
        module.register(subparsers)
    return root


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; user mistakes become one line per problem on stderr."""
    args = parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()  # a reader that left shows here, not in the interpreter's own flush at exit (code 120)
        return code
    except UserError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt as interrupt:
        return getattr(interrupt, "exit_code", 130)
    except BrokenPipeError:  # the reader left (`check | head -1`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes stdout
        return 141


if __name__ == "__main__":
    sys.exit(main())
