"""``list``: print catalogue ids and names, or JSON with the key facts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..catalog.load import load_catalog
from ..catalog.schema import Catalog

_MODEL_KEYS = ("hf_repo", "family", "org", "total_params", "active_params", "context_length", "license", "release_date")
_GPU_KEYS = ("vendor", "segment", "memory_bytes", "usable_memory_bytes", "bandwidth_gb_per_s", "fp16_tensor_tflops",
             "fp8_tensor_tflops", "tdp_w", "price_usd", "launch_date", "backends")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``list`` subcommand."""
    parser = subparsers.add_parser("list", help="list models, GPUs or cloud offers", description=__doc__)
    parser.add_argument("kind", choices=("models", "gpus", "clouds"))
    parser.add_argument("--json", action="store_true", help="print a JSON array with the key facts")
    parser.add_argument("--catalog", type=Path, default=Path("catalog"), help="catalogue folder (default: catalog)")
    parser.set_defaults(func=run)


def rows(catalog: Catalog, kind: str) -> list[dict[str, Any]]:
    """The listing as plain data, units in the key names."""
    if kind == "models":
        return [{"id": m.id, "name": m.name, **{k: getattr(m, k) for k in _MODEL_KEYS}} for m in catalog.models.values()]
    if kind == "gpus":
        return [{"id": g.id, "name": g.name, **{k: getattr(g, k) for k in _GPU_KEYS}} for g in catalog.gpus.values()]
    return [{"id": f"{p.id}/{i}", "name": o.instance, "provider": p.name, "gpu": o.gpu, "gpu_count": o.gpu_count,
             "price_usd_per_hour": o.price_usd_per_hour, "billing": o.billing, "tier": o.tier, "region": o.region,
             "checked": o.checked, "url": o.url}
            for p in catalog.clouds.values() for i, o in enumerate(p.offers)]


def run(args: argparse.Namespace) -> int:
    """Print the listing."""
    listing = rows(load_catalog(args.catalog), args.kind)
    if args.json:
        print(json.dumps(listing, indent=1, default=str, ensure_ascii=False))
    else:
        width = max((len(r["id"]) for r in listing), default=0)
        for row in listing:
            print(f"{row['id']:<{width}}  {row['name']}")
    return 0
