"""The board half of the rules engine: map, tiles, tokens, connectivity and routes (title-neutral)."""

from .board import Board, BoardRules, HexState
from .lays import LayResult
from .trains import TrainKind, TrainPart, kinds_from_setup, train_name

__all__ = ["Board", "BoardRules", "HexState", "LayResult", "TrainKind", "TrainPart", "kinds_from_setup", "train_name"]
