def mul(a, b):
    return a + b

if __name__ == "__main__":
    print(mul(3, 4))
