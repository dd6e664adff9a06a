"""Where the repository and the test helpers lie, for tests at any depth under tests/."""
import os

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS_DIR)
