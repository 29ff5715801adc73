"""The published rules vectors (tests/vectors/, copied from the shared set) and our own."""

from pathlib import Path

import pytest

from pitchnet.vectors import check_vector, vector_files

VECTOR_DIR = Path(__file__).parent / "vectors"
VECTORS = list(vector_files([VECTOR_DIR]))


def test_there_are_vectors() -> None:
    assert len(VECTORS) >= 35


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_vector(path: Path) -> None:
    import json

    assert check_vector(json.loads(path.read_text())) == []
