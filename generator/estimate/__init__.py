"""The estimator: memory (architecture, quant, weights, kvcache, runtime, device, fit), speed and cost.

Pure functions of typed inputs (``api.ModelSpec``, ``device.DeviceSpec``, ``api.Request``); ``generator.adapters``
makes those inputs from catalogue entries. Use ``api.estimate(model_spec(model), device_spec(gpu), api.Request(...))``.
"""
