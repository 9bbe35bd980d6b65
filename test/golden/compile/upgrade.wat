(module
)
