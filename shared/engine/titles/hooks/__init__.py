"""`TitleRules`' hooks, one group per part of a game, each a mixin a title never names: a title subclasses
`TitleRules` and overrides what its rules change, and the group a hook sits in says where in a game it
acts."""

from .flow import FlowRules
from .runs import RunRules
from .setup import SetupRules
from .stock import StockRules
from .trains import TrainRules
from .views import ViewRules

__all__ = ["FlowRules", "RunRules", "SetupRules", "StockRules", "TrainRules", "ViewRules"]
