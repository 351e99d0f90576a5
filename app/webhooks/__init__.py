"""Webhooks: a bank's subscriptions to its events, and their signed, retried deliveries."""
