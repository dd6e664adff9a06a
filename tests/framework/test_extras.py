"""Optional extras are imported on first use, with one error naming what is missing."""
import json

import pytest

from duograd.framework.extras import optional_module


def test_a_present_module_is_imported():
    assert optional_module("json", "demo", "A feature") is json


def test_a_missing_module_names_the_feature_the_package_and_the_extra():
    with pytest.raises(ImportError) as caught:
        optional_module("duograd_no_such_package.sub", "scipy", "Igamma")
    message = str(caught.value)
    assert message == ("Igamma needs the optional package duograd_no_such_package: "
                       "pip install 'duograd[scipy]'")
    assert isinstance(caught.value.__cause__, ImportError)
