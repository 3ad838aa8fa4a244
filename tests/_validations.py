"""Count the matrix validations a call makes (issue 36: inputs validated once per call
path). Shared by the tests of the estimators that validate their input once."""

import contextlib
import functools
import inspect
import sys

import proxlearn._multi_input as _multi_input
import proxlearn._validation as _validation

#: The validators of similarity matrices and of stacks of them.
VALIDATORS = {
    "check_similarity": _validation,
    "check_test_similarity": _validation,
    "check_multi_similarity": _multi_input,
    "check_multi_test": _multi_input,
}


@contextlib.contextmanager
def recorded_validations():
    """A list that receives ``(validator, name, input)`` (``name`` as the messages say it)
    for every validation made inside the block, counting only the outermost one (a
    stack's validator checks each of its matrices: one validation). Every ``proxlearn``
    module's binding of a validator is replaced for the block."""
    calls, depth = [], [0]
    originals = {id(getattr(mod, name)): getattr(mod, name) for name, mod in VALIDATORS.items()}

    def counted(f):
        signature = inspect.signature(f)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if depth[0] == 0:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                first = next(iter(bound.arguments.values()))
                calls.append((f.__name__, bound.arguments["name"], first))
            depth[0] += 1
            try:
                return f(*args, **kwargs)
            finally:
                depth[0] -= 1
        return wrapper

    wrapped = {key: counted(f) for key, f in originals.items()}
    patched = []
    for modname, mod in list(sys.modules.items()):
        if mod is None or not modname.startswith("proxlearn"):
            continue
        for attr, value in list(vars(mod).items()):
            if id(value) in wrapped and value is originals[id(value)]:
                setattr(mod, attr, wrapped[id(value)])
                patched.append((mod, attr, value))
    try:
        yield calls
    finally:
        for mod, attr, value in patched:
            setattr(mod, attr, value)
