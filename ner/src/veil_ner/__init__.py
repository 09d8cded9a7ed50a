"""veil-ner: Veil's NER sidecar (interface.md 4.27).

Finds person, organization and location names with a local model (spaCy by default) and
answers over a small HTTP API guarded by a shared secret. No model is ever downloaded at run
time: models come from installed registry packages or from a local directory.
"""

import os

# One BLAS thread per process (the model runs one call at a time on one worker thread, and a
# replica is sized to one core): OpenBLAS would otherwise start a thread per core and make the
# model's matrix products fight the event loop and the neighbours. Set before numpy is imported;
# an operator's own value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
SERVICE_NAME = "veil-ner"
