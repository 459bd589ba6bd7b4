import pytest

from engine.tbf.tables import default_tables
from engine.tbf.board import default_board


@pytest.fixture(scope="session")
def tables():
    return default_tables()


@pytest.fixture(scope="session")
def board():
    return default_board()
