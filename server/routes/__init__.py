"""One router per resource, each made by ``router(state)`` over the state every request shares."""
