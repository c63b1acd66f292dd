"""pip install ./python: the strata module, pure Python (cffi in ABI mode
opens libstrata at import; see strata/_lib.py for where it looks)."""
from setuptools import setup

setup(
    name="strata",
    version="0.1.0",  # the library's STRATA_VERSION (python/tests checks)
    description="Terraced terrain and planets (libstrata) with NumPy arrays",
    packages=["strata"],
    python_requires=">=3.9",
    install_requires=["cffi", "numpy"],
)
