"""The verifiable-play kernel: canonical JSON and signatures, the hash chain and receipts,
fair randomness, replay and the offline verifier. No I/O but reading a record file; no Redis."""
