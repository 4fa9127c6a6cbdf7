"""1840's steps: its stock round is the one round of steps (`stock`); its other rounds are flow rounds
(docs/architecture.md, *Flow rounds*), which carry their moves themselves."""
