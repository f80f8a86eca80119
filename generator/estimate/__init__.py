"""The estimator: memory (architecture, quant, weights, kvcache, runtime, device, fit), speed and cost.

Use ``api.estimate(api.model_spec(model), device.device_spec(gpu), api.Request(...))``.
"""
