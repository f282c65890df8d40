import StrataBench
print("strata-bench")
