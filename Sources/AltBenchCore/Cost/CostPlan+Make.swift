import Foundation

extension CostPlan {
    /// The plan of `trials`: `cachedKeys` are the cache keys the store answers (empty with
    /// `--no-cache`); with `sendsNothing` (`--offline`) nothing is to send.
    ///
    /// Trials are grouped into pairs by (variant name, max_tokens) in order of first
    /// appearance. A trial without a request (an image that cannot be sent) counts in
    /// `trials` only; one whose key the store answers is `cached`; any other is `toSend`
    /// unless `sendsNothing`. A trial whose request another trial of the plan sends byte for
    /// byte (the same key) is `cached` too: the run sends it once. Only requests to send add
    /// tokens, cost and assumptions. Each
    /// uses `trial.estimate` when the planner set one, else ``RequestEstimate/make(request:imageWidth:imageHeight:)``
    /// with the item's image size. A pair's cost is `nil` when a model it sends to has no
    /// price, and then so is the plan's total: a total without it would understate the cost.
    package static func make(trials: [Trial], cachedKeys: Set<String>, prices: PriceTable, sendsNothing: Bool = false)
        -> CostPlan
    {
        var pairs: [PairTally] = []
        var pairIndex: [PairKey: Int] = [:]
        var items: [ItemCost] = []
        var seenItems: Set<ItemKey> = []
        var assumptions = AssumptionTally()
        // Keys asked earlier in this plan: a byte-identical request is sent once per run.
        var planned: Set<String> = []

        for trial in trials {
            let pairKey = PairKey(variant: trial.variant.name, maxTokens: trial.maxTokens)
            let index: Int
            if let existing = pairIndex[pairKey] {
                index = existing
            } else {
                index = pairs.count
                pairIndex[pairKey] = index
                pairs.append(PairTally(key: pairKey))
            }
            pairs[index].trials += 1
            guard let request = trial.request else { continue }
            if pairs[index].model == nil { pairs[index].model = request.model }

            let isCached = trial.key.map { cachedKeys.contains($0) || !planned.insert($0).inserted } ?? false
            if isCached { pairs[index].cached += 1 }
            let detail = request.detail?.rawValue ?? ImageDetail.auto.rawValue
            let itemKey = ItemKey(id: trial.item.id, model: request.model, detail: detail)
            let sends = !isCached && !sendsNothing
            let isNewItem = !seenItems.contains(itemKey)
            guard sends || isNewItem else { continue }
            // Estimated only when it adds an item or tokens: a plan of many cached repeats
            // does not tokenize the same prompt again for each.
            let estimate =
                trial.estimate
                ?? RequestEstimate.make(
                    request: request, imageWidth: trial.item.imageInfo?.width, imageHeight: trial.item.imageInfo?.height)
            if isNewItem {
                seenItems.insert(itemKey)
                items.append(
                    ItemCost(
                        id: trial.item.id, model: request.model, width: trial.item.imageInfo?.width,
                        height: trial.item.imageInfo?.height, detail: detail, imageTokens: estimate.imageTokens))
            }
            guard sends else { continue }
            pairs[index].add(estimate, model: request.model)
            assumptions.add(estimate, itemID: trial.item.id)
        }

        var unpriced: Set<String> = []
        let finished = pairs.map { tally -> Pair in
            let model = tally.model ?? ""
            var costLow: Double? = 0
            var costHigh: Double? = 0
            if tally.toSend == 0 {
                // Nothing to send costs nothing, if the model has a price to say so.
                if prices.price(forModel: model) == nil { (costLow, costHigh) = (nil, nil) }
            }
            for (requestModel, tokens) in tally.tokensByModel {
                guard let price = prices.price(forModel: requestModel)?.price else {
                    unpriced.insert(requestModel)
                    (costLow, costHigh) = (nil, nil)
                    continue
                }
                costLow = costLow.map { $0 + price.cost(inputTokens: tokens.input, outputTokens: 0) }
                costHigh = costHigh.map { $0 + price.cost(inputTokens: tokens.input, outputTokens: tokens.output) }
            }
            return Pair(
                variant: tally.key.variant, maxTokens: tally.key.maxTokens, model: model, trials: tally.trials,
                cached: tally.cached, toSend: tally.toSend, inputTokens: tally.inputTokens, imageTokens: tally.imageTokens,
                outputTokensMax: tally.outputTokensMax, costLow: costLow, costHigh: costHigh)
        }
        return CostPlan(
            pairs: finished, items: items, assumptions: assumptions.sentences, unpricedModels: unpriced.sorted(),
            batchDiscount: prices.batchDiscount)
    }

    private struct PairKey: Hashable {
        var variant: String
        var maxTokens: Int?
    }

    private struct ItemKey: Hashable {
        var id: String
        var model: String
        var detail: String
    }

    /// A pair's counts while the trials are read.
    private struct PairTally {
        var key: PairKey
        /// The first request's model; `nil` while no trial of the pair has a request.
        var model: String?
        var trials = 0
        var cached = 0
        var toSend = 0
        var inputTokens = 0
        var imageTokens = 0
        var outputTokensMax = 0
        /// Input and output tokens per model sent to, in order of first use (a pair names one
        /// model in practice; each is priced on its own if not).
        var tokensByModel: [(model: String, tokens: (input: Int, output: Int))] = []

        init(key: PairKey) { self.key = key }

        mutating func add(_ estimate: RequestEstimate, model: String) {
            toSend += 1
            inputTokens += estimate.inputTokens
            imageTokens += estimate.imageTokens
            outputTokensMax += estimate.outputTokensMax
            if let index = tokensByModel.firstIndex(where: { $0.model == model }) {
                tokensByModel[index].tokens.input += estimate.inputTokens
                tokensByModel[index].tokens.output += estimate.outputTokensMax
            } else {
                tokensByModel.append((model, (estimate.inputTokens, estimate.outputTokensMax)))
            }
        }
    }

    /// The assumptions of the requests to send, each kind once, in order of first
    /// appearance, with counts where a count says more than the kind alone.
    private struct AssumptionTally {
        private enum Slot: Hashable {
            /// Remote images of unknown size, by model and the tokens each was counted at.
            case unknownSize(model: String, imageTokens: Int)
            /// Requests without max_tokens, by the ceiling assumed.
            case noMaxTokens(ceiling: Int)
            case other(EstimateAssumption)
        }

        private var order: [Slot] = []
        private var images: [Slot: Set<String>] = [:]
        private var requests: [Slot: Int] = [:]

        mutating func add(_ estimate: RequestEstimate, itemID: String) {
            for assumption in estimate.assumptions {
                let slot: Slot
                switch assumption {
                case .unknownImageSize(let model): slot = .unknownSize(model: model, imageTokens: estimate.imageTokens)
                case .noMaxTokens(let ceiling): slot = .noMaxTokens(ceiling: ceiling)
                default: slot = .other(assumption)
                }
                if images[slot] == nil {
                    order.append(slot)
                    images[slot] = []
                }
                images[slot]!.insert(itemID)
                requests[slot, default: 0] += 1
            }
        }

        var sentences: [String] {
            order.map { slot in
                switch slot {
                case .unknownSize(let model, let imageTokens):
                    let count = images[slot]?.count ?? 0
                    let images = count == 1 ? "1 remote image" : "\(count) remote images"
                    let verb = count == 1 ? "is" : "are"
                    let subject = "\(images) of unknown size\(EstimateAssumption.forUnknown(model)) \(verb)"
                    return
                        "\(subject) counted at the most \(EstimateAssumption.formulaOwner(model)) can charge for one image (\(EstimateAssumption.grouped(imageTokens)) tokens)."
                case .noMaxTokens(let ceiling):
                    let count = requests[slot] ?? 0
                    let tokens = EstimateAssumption.grouped(ceiling)
                    return count == 1
                        ? "1 request without max_tokens is counted at \(tokens) output tokens; its answer can be longer."
                        : "\(count) requests without max_tokens are counted at \(tokens) output tokens each; their answers can be longer."
                case .other(let assumption):
                    return assumption.description
                }
            }
        }
    }
}
