"""Transition-modeling evaluation (EAI §2.4): logic-form scores, planner success, plan
validity under the gold model, Z3 operator checks."""
