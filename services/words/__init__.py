"""A game in words, for every channel that shows one to players: the game page and the mail."""
