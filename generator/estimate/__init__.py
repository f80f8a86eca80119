"""The estimator: memory (architecture, quant, weights, kvcache, runtime, device, verdict), speed and cost.

Pure functions of typed inputs (``estimator.ModelSpec``, ``device.DeviceSpec``, ``estimator.Request``);
``generator.sitedata.adapters`` makes those inputs from catalogue entries. Use
``estimator.estimate(model_spec(model), device_spec(gpu), estimator.Request(...))``.
"""
