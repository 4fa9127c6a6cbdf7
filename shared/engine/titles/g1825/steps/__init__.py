"""1825's operating-round steps, one module per family of actions: track and stations (`track`), runs,
the receivership lease and dividends (`runs`). Each subclasses the core step and overrides the step's own
methods for what 1825's rules change."""
