"""veil-ner: Veil's NER sidecar (interface.md 4.27).

Finds person, organization and location names with a local model (spaCy by default) and
answers over a small HTTP API guarded by a shared secret. No model is ever downloaded at run
time: models come from installed registry packages or from a local directory.
"""

__version__ = "0.1.0"
SERVICE_NAME = "veil-ner"
