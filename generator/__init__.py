"""VRAM Atlas: can this GPU run this LLM, how well, and what does it cost?"""

__version__ = "0.1.0"
