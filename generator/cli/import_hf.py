"""``import-hf``: start a model entry from a Hugging Face config.json, ready to edit."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ..catalog.check import model_problems
from ..catalog.load import display_path, validation_problems
from ..catalog.schema import Model
from ..errors import Problem, UserError
from ..estimate.architecture import ConfigError, parse_hf_config

_SIZE = re.compile(r"^\d+(\.\d+)?[BM]$", re.IGNORECASE)  # "8B", "0.6B", "135M": where the family name ends


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``import-hf`` subcommand."""
    parser = subparsers.add_parser("import-hf", help="write a model entry from a config.json", description=__doc__)
    parser.add_argument("config", type=Path, help="the model's config.json")
    parser.add_argument("--id", required=True, help="catalogue id, e.g. llama-3.1-8b")
    parser.add_argument("--repo", required=True, help="Hugging Face repository, ORG/NAME")
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.set_defaults(func=run)


def read_config(path: Path) -> dict[str, Any]:
    """The parsed config.json; an unreadable or malformed file is a one-line problem."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(Problem(str(path), "", f"cannot read: {getattr(error, 'strerror', None) or error}")) from None
    except json.JSONDecodeError as error:
        raise UserError(Problem(str(path), f"line {error.lineno}", f"invalid JSON: {error.msg}")) from None
    if not isinstance(config, dict):
        raise UserError(Problem(str(path), "", "must be a JSON object"))
    return config


def family_of(name: str) -> str:
    """The repository name up to its first size token: ``Meta-Llama-3.1-8B`` -> ``Meta-Llama-3.1``."""
    parts = name.split("-")
    cut = next((i for i, part in enumerate(parts) if i and _SIZE.match(part)), len(parts))
    return "-".join(parts[:cut])


def entry(config: dict[str, Any], model_id: str, repo: str, today: dt.date) -> dict[str, Any]:
    """The catalogue entry as plain data, in the order the file shows it."""
    arch = parse_hf_config(config)
    org, _, name = repo.partition("/")
    computed = ["total_params"] + (["active_params"] if arch.n_experts else [])
    data: dict[str, Any] = {"id": model_id, "name": name, "family": family_of(name), "org": org, "hf_repo": repo,
                            "total_params": arch.total_params()}
    if arch.n_experts:
        data["active_params"] = arch.active_params()
    data |= {"context_length": arch.context_length, "config_revision": "main", "config": config}
    data["sources"] = [{
        "url": f"https://huggingface.co/{repo}/blob/main/config.json", "read": today,
        "fields": ["config", "context_length", *computed],
        "note": f"{' and '.join(computed)} computed from this config by generator.estimate.architecture",
    }]
    data["notes"] = (f"Written by import-hf. {' and '.join(computed)} are computed from the config (text model, MTP "
                     "layers included, vision tower excluded): replace them with the published figures (safetensors "
                     "metadata or model card) and cite that source. Check name, family and org (taken from the "
                     "repository name); add license and release_date with their sources.")
    return data


def run(args: argparse.Namespace) -> int:
    """Write ``<catalog>/models/<id>.yaml``; refuse to overwrite, and refuse an entry that would fail ``check``."""
    path = args.catalog / "models" / f"{args.id}.yaml"
    shown = display_path(path, args.catalog)
    if path.exists():
        raise UserError(Problem(shown, "id", "already exists"))
    config = read_config(args.config)
    try:
        data = entry(config, args.id, args.repo, dt.date.today())
    except ConfigError as error:
        raise UserError(Problem(str(args.config), error.field, error.message)) from None
    if not data["context_length"]:
        raise UserError(Problem(str(args.config), "max_position_embeddings", "is required for context_length"))
    try:
        model = Model.model_validate(data)
    except ValidationError as error:
        raise UserError(validation_problems(error, shown)) from None
    problems = model_problems(model)
    if problems:
        raise UserError([Problem(shown, field, message) for field, message in problems])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as file:
        yaml.safe_dump(data, file, sort_keys=False, allow_unicode=True, width=120)
    print(f"wrote {shown}: {model.total_params / 1e9:.2f} B parameters (computed), context {model.context_length}")
    return 0
