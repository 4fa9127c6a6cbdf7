"""Notifier: turns the event store's outbox into turn alerts (webhooks, email, reminders).

It reads committed outbox rows only, and writes what it schedules together with its own tracking row, so a
crash or restart never loses a notification and repeats one only with the same stable webhook-id.
"""
