"""1833NE's steps, one module per family of actions: the stock round's buying, selling and launching
(`stock`). (Its operating steps are still in `operating.py`.)"""
