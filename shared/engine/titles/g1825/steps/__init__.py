"""1825's operating-round steps, one module per family of actions, each a subclass of the core step that
overrides the methods whose rule 1825 changes."""
