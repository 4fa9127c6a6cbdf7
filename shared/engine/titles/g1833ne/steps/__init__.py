"""1833NE's steps, one module per family of actions: the stock round's buying, selling and launching
(`stock`), track and stations (`track`), runs and dividends (`runs`), buying trains, the emergency purchase and
the discard (`trains`), and the corporation's finance and shopping open in both the build and train steps
(`finance`, a mixin). Each subclasses the core step of its family and declares its moves as the core's steps do
(`offers` -> `offer_*`), overriding the core step's own methods where 1833NE's rules differ."""
