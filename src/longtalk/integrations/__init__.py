"""Adapters to the frameworks people already use, each behind its own optional extra.

Import the submodule you need (``longtalk.integrations.langchain``, ...); importing this
package alone needs none of the extras.
"""
