import StrataStorage
print("probe")
