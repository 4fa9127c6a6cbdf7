"""1828's operating-round and merger steps, one module per family of actions: track and stations
(`track`), routes and dividends (`routes`), trains and bankruptcy (`trains`), privates bought by corporations
(`companies`), and the merger that forms a System in the stock round (`merger`). Each step declares what
it handles (`handlers`) and the concrete moves it offers (`offers`), with the same checks."""
