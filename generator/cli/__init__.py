"""Command-line subcommands, one module each, registered by ``generator.__main__``."""
