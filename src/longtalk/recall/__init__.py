"""Semantic recall: hybrid dense + lexical retrieval of past turns over a vector store."""

from longtalk.recall.lexical import BM25Params
from longtalk.recall.ranking import RankingConfig
from longtalk.recall.retriever import HybridRetriever

__all__ = ["BM25Params", "HybridRetriever", "RankingConfig"]
