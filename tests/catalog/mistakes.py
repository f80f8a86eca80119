"""The catalogue mistakes ``check`` reports in exactly one line naming file and field (exit status 1): each a
replacement in one file of the fixture catalogue (tests/catalog/fixtures/catalog) and the line it must print."""

from __future__ import annotations

import pytest

MODEL = "models/llama-3.1-8b.yaml"
GPU = "gpus/mi300x.yaml"
CLOUD = "clouds/digitalocean.yaml"
LLAMA = "catalog/models/llama-3.1-8b.yaml"
BOMB = """  bomb_a: &a [x, x, x, x, x, x, x, x, x, x]
  bomb_b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
  bomb_c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
  bomb_d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
  architectures: [LlamaForCausalLM]"""
CHECKPOINT = ("checkpoints:\n- repo: neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8\n  quant: FP8\n  size_bytes: {size}\n"
              "  source_url: {url}\n  read: 2026-11-30\nollama:")
HUGE = "1000000000000000000000000000000"


MISTAKES = [
    # single-file mistakes the loader catches
    pytest.param(MODEL, "name: Llama 3.1 8B Instruct", "name: [Llama 3.1",
                 "catalog/models/llama-3.1-8b.yaml: line 3: invalid YAML: did not find expected ',' or ']'",
                 id="yaml-syntax"),
    pytest.param(MODEL, "org: Meta\n", "org: Meta\norg: Meta AI\n",
                 "catalog/models/llama-3.1-8b.yaml: line 5: invalid YAML: duplicate key 'org'", id="duplicate-key"),
    pytest.param(GPU, "memory_type: HBM3\n", "", "catalog/gpus/mi300x.yaml: memory_type: is required",
                 id="missing-field"),
    pytest.param(CLOUD, "gpu_count: 1", "gpu_count: one", "catalog/clouds/digitalocean.yaml: offers.0.gpu_count: "
                 "must be a valid integer, got the text 'one'", id="wrong-type"),
    pytest.param(MODEL, "size_bytes: 8540771264", "size_bytes: -8540771264",
                 "catalog/models/llama-3.1-8b.yaml: gguf.0.files.0.size_bytes: must be greater than 0",
                 id="negative-size"),
    pytest.param(GPU, "memory_type: HBM3\n", "memory_type: HBM3\nvram_gb: 192\n",
                 "catalog/gpus/mi300x.yaml: vram_gb: unknown field", id="unknown-field"),
    pytest.param(GPU, "segment: datacenter", "segment: server",
                 "catalog/gpus/mi300x.yaml: segment: must be 'consumer', 'workstation', 'datacenter' or 'unified'",
                 id="unknown-enum"),
    pytest.param(MODEL, "id: llama-3.1-8b", "id: Llama_3.1",
                 "catalog/models/llama-3.1-8b.yaml: id: must match pattern '^[a-z0-9]+(?:[-.][a-z0-9]+)*$'",
                 id="bad-id"),
    pytest.param(MODEL, "total_params: 8030261248", "total_params: 8030261248\nactive_params: 9000000000",
                 "catalog/models/llama-3.1-8b.yaml: active_params: must not exceed total_params", id="active-gt-total"),
    pytest.param(MODEL, "  read: 2026-11-30\n  fields: [total_params]", "  read: yesterday\n  fields: [total_params]",
                 "catalog/models/llama-3.1-8b.yaml: sources.1.read: must be a valid date, got the text 'yesterday'",
                 id="undated-source"),
    # cross-entry and plausibility mistakes
    # fields: [license, release_date] -> license has no source left
    pytest.param(MODEL, "fields: [license, release_date]", "fields: [release_date]",
                 f"{LLAMA}: license: has no source: list it in some source's fields", id="unsourced-fact"),
    pytest.param(MODEL, "fields: [license, release_date]", "fields: [license, release_date, licence]",
                 f"{LLAMA}: sources.2.fields: unknown field 'licence'", id="source-names-unknown-field"),
    pytest.param(CLOUD, "gpu: mi300x", "gpu: mi300",
                 "catalog/clouds/digitalocean.yaml: offers.0.gpu: unknown GPU id 'mi300'", id="unknown-gpu"),
    # 5300 GB/s over 32 GiB = 165.6 GB/s per GiB, above 150
    pytest.param(GPU, "memory_bytes: 206158430208", "memory_bytes: 34359738368",
                 "catalog/gpus/mi300x.yaml: bandwidth_gb_per_s: implausible for the memory size: "
                 "166 GB/s per GiB, expected 1 to 150", id="implausible-bandwidth"),
    # sparse FP8 (5229.8) instead of dense: still 4x the FP16 rate, inside [1, 4]; a tenfold slip is not
    pytest.param(GPU, "fp8_tensor_tflops: 2614.9", "fp8_tensor_tflops: 26149",
                 "catalog/gpus/mi300x.yaml: fp8_tensor_tflops: implausible: 20 times fp16_tensor_tflops, "
                 "expected 1 to 4", id="implausible-fp8"),
    # 8030261248 computed exactly; accepted 0.95x = 7.629 B to 1.05x = 8.432 B (untied, no MTP, text only)
    pytest.param(MODEL, "total_params: 8030261248", "total_params: 9030261248",
                 f"{LLAMA}: total_params: 9.030 B is inconsistent with the config "
                 "(computed 8.030 B; accepted 7.629 to 8.432 B)", id="params-inconsistent"),
    pytest.param(MODEL, "  hidden_size: 4096", "  hidden_size: big",
                 f"{LLAMA}: config.hidden_size: must be a non-negative integer, got 'big'", id="config-unparsable"),
    pytest.param(MODEL, "context_length: 131072", "context_length: 8192",
                 f"{LLAMA}: context_length: 8192 differs from the config's max_position_embeddings (131072): "
                 "cite the source that states it", id="context-inconsistent"),
    pytest.param(MODEL, "quant: Q6_K,", "quant: Q6_K_Q,",
                 f"{LLAMA}: gguf.0.files.1.quant: unknown quant name 'Q6_K_Q'", id="unknown-gguf-quant"),
    pytest.param(MODEL, "  quant: Q4_K_M\n", "  quant: q4km\n",
                 f"{LLAMA}: ollama.0.quant: unknown quant name 'q4km'", id="unknown-ollama-quant"),
    # 199 USD for one GPU-hour
    pytest.param(CLOUD, "price_usd_per_hour: 1.99", "price_usd_per_hour: 199",
                 "catalog/clouds/digitalocean.yaml: offers.0.price_usd_per_hour: implausible: "
                 "199 USD per GPU-hour, expected 0.05 to 30", id="implausible-price"),
    pytest.param(CLOUD, "checked: 2026-05-28", "checked: 2099-05-28",
                 "catalog/clouds/digitalocean.yaml: offers.0.checked: 2099-05-28 is in the future", id="future-price"),
    pytest.param(MODEL, "release_date: 2024-07-23", "release_date: 2099-07-23",
                 f"{LLAMA}: release_date: 2099-07-23 is in the future", id="future-release"),
    pytest.param(GPU, "price_date: 2026-05-13", "price_date: 2099-05-13",
                 "catalog/gpus/mi300x.yaml: price_date: 2099-05-13 is in the future", id="future-gpu-price"),
    pytest.param(CLOUD, "    url: https://docs.digitalocean.com/products/droplets/details/pricing/\n",
                 "    url: DigitalOcean pricing page\n",
                 "catalog/clouds/digitalocean.yaml: offers.0.url: must be an https:// URL",
                 id="price-without-url"),
    # the name states 8 GPUs; an offer of 3 of them is not a whole share of the instance
    pytest.param(CLOUD, '"GPU Droplet, 1x AMD MI300X (192 GB)"\n    gpu: mi300x\n    gpu_count: 1',
                 '"GPU Droplet, 8x AMD MI300X"\n    gpu: mi300x\n    gpu_count: 3',
                 "catalog/clouds/digitalocean.yaml: offers.0.gpu_count: 3 does not divide the 8 GPUs the instance "
                 "name states", id="gpu-count-not-dividing"),
    # 191.5 GiB, a driver-reported total: the marketed size must be given
    pytest.param(GPU, "memory_bytes: 206158430208\n", "memory_bytes: 205621559296\n",
                 "catalog/gpus/mi300x.yaml: memory_gb: required: memory_bytes is 191.500 GiB, not a whole number "
                 "(a driver-reported total); give the size as the vendor states it", id="marketed-memory-missing"),
    pytest.param(GPU, "- url: https://github.com/huggingface/huggingface.js/blob/fe42e68017ffc76d09922ea8f9b38a6964345710/packages/tasks/src/hardware-amd.ts\n",
                 "- url: huggingface.js hardware table\n",
                 "catalog/gpus/mi300x.yaml: price_usd: a price needs a source with the http(s) URL it was read from",
                 id="purchase-price-without-url"),
    pytest.param(GPU, "unified_memory: false", "unified_memory: true",
                 "catalog/gpus/mi300x.yaml: unified_memory: must be true exactly for segment 'unified'",
                 id="unified-memory"),
    # hostile or careless input (issue 16): links that are not https, YAML that multiplies itself, architecture
    # numbers that would exhaust memory, values the estimator would silently ignore or coerce
    pytest.param(CLOUD, "    url: https://docs.digitalocean.com/products/droplets/details/pricing/",
                 "    url: javascript:alert(document.cookie)",
                 "catalog/clouds/digitalocean.yaml: offers.0.url: must be an https:// URL", id="script-offer-url"),
    pytest.param(CLOUD, "url: https://docs.digitalocean.com/products/droplets/details/pricing/\noffers",
                 "url: http://docs.digitalocean.com/\noffers",
                 "catalog/clouds/digitalocean.yaml: url: must be an https:// URL", id="plain-http-provider-url"),
    pytest.param(GPU, "- url: https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html",
                 "- url: javascript:alert(1) // AMD datasheet",
                 "catalog/gpus/mi300x.yaml: sources.0.url: must be an https:// URL", id="script-source-url"),
    pytest.param(CLOUD, "    url: https://docs.digitalocean.com/products/droplets/details/pricing/",
                 '    url: "https://example.com/\\"onmouseover=alert(1)"',
                 "catalog/clouds/digitalocean.yaml: offers.0.url: must be an https:// URL", id="quote-in-url"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", BOMB,
                 "catalog/models/llama-3.1-8b.yaml: line 11: invalid YAML: anchors and aliases (&name, *name) are not "
                 "allowed", id="alias-bomb"),
    pytest.param(MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: 1000000000000",
                 "catalog/models/llama-3.1-8b.yaml: config.num_hidden_layers: must be at most 4,096, "
                 "got 1,000,000,000,000", id="huge-layer-count"),
    pytest.param(MODEL, "  vocab_size: 128256", "  vocab_size: 10000000000",
                 "catalog/models/llama-3.1-8b.yaml: config.vocab_size: must be at most 16,777,216, "
                 "got 10,000,000,000", id="huge-vocabulary"),
    pytest.param(MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: 32\n  head_dim: 0",
                 "catalog/models/llama-3.1-8b.yaml: config.head_dim: must be positive", id="zero-head-dim"),
    pytest.param(MODEL, "  num_key_value_heads: 8", "  num_key_value_heads: 7",
                 "catalog/models/llama-3.1-8b.yaml: config.num_key_value_heads: must be a positive divisor of "
                 "num_attention_heads (32), got 7", id="kv-heads-not-dividing"),
    pytest.param(GPU, "bandwidth_gb_per_s: 5300", 'bandwidth_gb_per_s: "5300"',
                 "catalog/gpus/mi300x.yaml: bandwidth_gb_per_s: must be a valid number, got the text '5300'",
                 id="quoted-number"),
    pytest.param(CLOUD, "    gpu_count: 1", "    gpu_count: '1'",
                 "catalog/clouds/digitalocean.yaml: offers.0.gpu_count: must be a valid integer, got the text '1'",
                 id="quoted-integer"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", "  architectures: !!set {a, b}",
                 "catalog/models/llama-3.1-8b.yaml: config: must hold JSON data only (as config.json does); not at "
                 "architectures", id="yaml-set-in-config"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", "  deep: " + "[" * 20000 + "]" * 20000,
                 "catalog/models/llama-3.1-8b.yaml: line 11: invalid YAML: exceeded maximum nesting depth",
                 id="deep-nesting"),
    # Python's own limits (int() of 4,300+ digits, dates) and sizes no file has (issue 27)
    pytest.param(MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: " + "9" * 5000,
                 "catalog/models/llama-3.1-8b.yaml: invalid value: Exceeds the limit (4300 digits) for integer string "
                 "conversion: value has 5000 digits", id="integer-of-5000-digits"),
    pytest.param(MODEL, "read: 2026-11-30\n  files:\n  - {quant: Q8_0", "read: 2026-02-30\n  files:\n  - {quant: Q8_0",
                 "catalog/models/llama-3.1-8b.yaml: invalid value: day is out of range for month", id="30th-of-february"),
    pytest.param(MODEL, "{quant: Q8_0, size_bytes: 8540771264,", "{quant: Q8_0, size_bytes: " + HUGE + ",",
                 "catalog/models/llama-3.1-8b.yaml: gguf.0.files.0.size_bytes: must be less than or equal to "
                 "4398046511104", id="huge-gguf-size"),
    pytest.param(MODEL, "  size_bytes: 4920753328", "  size_bytes: " + HUGE,
                 "catalog/models/llama-3.1-8b.yaml: ollama.0.size_bytes: must be less than or equal to 4398046511104",
                 id="huge-ollama-size"),
    pytest.param(MODEL, "ollama:", CHECKPOINT.format(size=HUGE, url="https://huggingface.co/neuralmagic/x"),
                 "catalog/models/llama-3.1-8b.yaml: checkpoints.0.size_bytes: must be less than or equal to "
                 "4398046511104", id="huge-checkpoint-size"),
    pytest.param(MODEL, "ollama:", CHECKPOINT.format(size=8_500_000_000, url="javascript:alert(1)"),
                 "catalog/models/llama-3.1-8b.yaml: checkpoints.0.source_url: must be an https:// URL",
                 id="script-checkpoint-url"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", "  architectures: [LlamaForCausalLM]\n  x: " + HUGE,
                 "catalog/models/llama-3.1-8b.yaml: config: must hold JSON data only (as config.json does); not at x",
                 id="config-integer-beyond-json"),
]
