"""`planproof run`: prompts, calls through the response cache, scoring, run directories."""
