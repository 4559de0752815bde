"""Semantic recall: hybrid dense + lexical retrieval of past turns over a vector store."""

from memstrata.recall.lexical import BM25Params
from memstrata.recall.ranking import RankingConfig
from memstrata.recall.retriever import HybridRetriever

__all__ = ["BM25Params", "HybridRetriever", "RankingConfig"]
