"""1825's steps, one module per family of actions: the stock round's buying and selling (`stock`), track
and stations (`track`), runs, the receivership lease and dividends (`runs`), buying trains (`trains`). Each
subclasses the core step of its family and overrides the step's own methods where 1825's rules differ."""
