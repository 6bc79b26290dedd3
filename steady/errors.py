"""The one exception users see: bad input, reported as file, element and reason."""


class InputError(ValueError):
    """Bad input: the CLI prints ``str(error)`` on one line and exits with code 2."""

    def __init__(self, origin: str, element: str, reason: str):
        self.origin = origin
        self.element = element
        self.reason = reason
        super().__init__(f"{origin}: {element}: {reason}")
