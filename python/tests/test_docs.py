"""The examples in the docstrings of the stubs (python/stridekit/__init__.pyi) and of the package run as written."""

import ast
import doctest
import os

import numpy as np

import stridekit

HERE = os.path.dirname(os.path.abspath(__file__))
STUBS = os.path.join(HERE, "..", "stridekit", "__init__.pyi")


def run_examples(name, doc):
    test = doctest.DocTestParser().get_doctest(doc, {"np": np, "stridekit": stridekit}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    return test.examples, runner.failures


def test_stub_examples():
    tree = ast.parse(open(STUBS).read())
    total = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node)
            if doc and ">>>" in doc:
                examples, failures = run_examples(node.name, doc)
                assert failures == 0, node.name
                total += len(examples)
    assert total >= 9


def test_package_docstring_examples():
    examples, failures = run_examples("stridekit", stridekit.__doc__)
    assert failures == 0 and len(examples) >= 3
