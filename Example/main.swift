print("Example")
