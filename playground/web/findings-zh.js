// Finding and problem texts in other languages than English, by stable code.
//
// The engine (package diagnose) writes every finding in English, with a
// stable code and structured fields (pod, evidence, cause, knownBugs,
// topologyAffinityError). The tables below give, per language and code, a
// title, an explanation and a remedy. They are templates: {path} is filled
// from the finding's JSON field at that path ("pod", "evidence.0.file",
// "topologyAffinityError.policy"), {path|text} uses text when the field is
// empty, and [[ ... ]] is left out whole when a field inside it is empty.
// The templates never take words from the English sentences: where the
// specifics live only there, the text says so, and the page shows the
// English original next to it.
//
// A variant ("when": field path -> value) replaces the texts it names when
// every condition holds; the first matching variant wins. A path segment
// "*" matches any element of a list; the value "*" any non-empty value.
//
// FINDING_TEXTS and PROBLEM_TEXTS are plain JSON, so the Go tests read them
// without a JavaScript engine (playground/i18n_test.go).
"use strict";

const FINDING_TEXTS = {
  "zh-CN": {
    "common": {
      "knownBugsExplanation": "[[这与已知的上游 kubelet 缺陷相符：{knownBugs}（受影响的版本、修复版本和临时解决办法见下方英文原文）。]]",
      "knownBugsRemedy": "[[涉及已知缺陷 {knownBugs}：如果这个 kubelet 版本受影响，请升级到已修复的版本，在此之前按下方英文原文中的临时解决办法处理。]]",
      "missing": "（见下方英文原文）"
    },
    "codes": {
      "TopologyAffinityError": {
        "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝",
        "explanation": "kubelet 的拓扑管理器（策略 {topologyAffinityError.policy|未知}，作用域 {topologyAffinityError.scope|container}）在准入时拒绝了[[容器 {topologyAffinityError.container} 所在的]] Pod[[ {pod}]]。拓扑管理器会向设备、CPU 和内存管理器询问每项请求的资源可以放在哪些 NUMA 节点上（NUMA 提示，hint），合并这些提示，只有当合并后的最佳提示满足策略时才准入。{@why}[[各资源的请求量与各 NUMA 节点（或 NUMA 组）的情况如下。{topologyAffinityError.resources}。]][[kubelet 日志中合并后的最佳提示为：{topologyAffinityError.loggedBestHint}。]]numascope 依据日志和状态文件重新执行合并的过程与结果见下方英文原文。被准入拒绝的 Pod 会一直处于 Failed 状态：调度器不会重试；控制器重建的 Pod 可能再次落到同一节点并以同样方式失败。",
        "why": "仅凭现有证据无法判断是资源不足还是策略不允许这种放置（通常是因为证据中没有该 Pod 的 kubelet 提示日志行）。",
        "remedy": "补充被拒绝前后的 kubelet 日志（journalctl -u kubelet，包含 \"TopologyHints\" 和 \"Best TopologyHint\" 的行）、kubelet 配置和状态文件，然后重新诊断。",
        "variants": [
          {
            "when": {"topologyAffinityError.cause": "insufficient-resources"},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝：某项请求的资源在任何 NUMA 节点上都不够（insufficient-resources）",
            "why": "原因是资源不足（insufficient-resources）：至少有一项请求的资源（CPU、内存、大页或设备）在任何一个 NUMA 节点或 NUMA 节点组合上都没有足够的空闲量。",
            "remedy": "释放无法放置的资源（删除占用它的 Pod，或等待设备插件上报其设备），或者让 Pod 运行在拥有该资源的节点上；然后删除失败的 Pod，让控制器重建它。默认调度器看不到 NUMA 放置；拓扑感知调度插件（NodeResourceTopologyMatch）可以避免重复失败。"
          },
          {
            "when": {"topologyAffinityError.cause": "policy-constraint", "topologyAffinityError.admissibleOnEmptyNode": true},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝：资源是空闲的，但不在策略允许组合的 NUMA 节点上（policy-constraint）",
            "why": "原因是策略约束（policy-constraint）：每项资源单独看都能放下，但策略不允许能放下它们的那种组合。在空节点上这个请求能满足策略，所以在一个 NUMA 节点上释放资源就能让它通过。",
            "remedy": "该请求在空节点上能满足策略：在同一个 NUMA 节点上释放所请求的资源（资源表显示每项资源目前能放在哪里：删除或迁走在那里占用独占 CPU、内存或设备的 Pod），或者让 Pod 运行在空闲资源能对齐的节点上；然后删除失败的 Pod，让控制器重建它。默认调度器看不到 NUMA 放置；拓扑感知调度插件（NodeResourceTopologyMatch）可以避免重复失败。"
          },
          {
            "when": {"topologyAffinityError.cause": "policy-constraint", "topologyAffinityError.admissibleOnEmptyNode": false, "topologyAffinityError.policy": "single-numa-node"},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝：即使节点全空，该请求也无法满足策略（policy-constraint）",
            "why": "原因是策略约束（policy-constraint）：每项资源单独看都能放下，但策略不允许能放下它们的那种组合。即使在空节点上，这个请求也无法满足策略，所以必须修改请求或策略，释放资源无济于事。",
            "remedy": "让请求的每项资源都能放进一个 NUMA 节点（每个容器更少的 CPU、内存或设备，或拆分工作负载）；如果可以接受跨 NUMA 节点放置，把 topologyManagerPolicy 改为 restricted 或 best-effort（或把 topologyManagerScope 改为 container）。然后删除失败的 Pod。"
          },
          {
            "when": {"topologyAffinityError.cause": "policy-constraint", "topologyAffinityError.admissibleOnEmptyNode": false},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝：即使节点全空，该请求也无法满足策略（policy-constraint）",
            "why": "原因是策略约束（policy-constraint）：每项资源单独看都能放下，但策略不允许能放下它们的那种组合。即使在空节点上，这个请求也无法满足策略，所以必须修改请求或策略，释放资源无济于事。",
            "remedy": "调整请求，使每项资源需要相同数量的 NUMA 节点（restricted 只准入每个提示提供者都首选的合并提示）；如果可以接受非首选的放置，改用 topologyManagerPolicy best-effort。然后删除失败的 Pod。"
          },
          {
            "when": {"topologyAffinityError.cause": "policy-constraint", "topologyAffinityError.policy": "single-numa-node"},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝：资源是空闲的，但不在策略允许组合的 NUMA 节点上（policy-constraint）",
            "why": "原因是策略约束（policy-constraint）：每项资源单独看都能放下，但策略不允许能放下它们的那种组合。",
            "remedy": "让请求的每项资源都能放进一个 NUMA 节点（每个容器更少的 CPU、内存或设备，或拆分工作负载）；如果可以接受跨 NUMA 节点放置，把 topologyManagerPolicy 改为 restricted 或 best-effort（或把 topologyManagerScope 改为 container）。然后删除失败的 Pod。"
          },
          {
            "when": {"topologyAffinityError.cause": "policy-constraint"},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝：资源是空闲的，但不在策略允许组合的 NUMA 节点上（policy-constraint）",
            "why": "原因是策略约束（policy-constraint）：每项资源单独看都能放下，但策略不允许能放下它们的那种组合。",
            "remedy": "调整请求，使每项资源需要相同数量的 NUMA 节点（restricted 只准入每个提示提供者都首选的合并提示）；如果可以接受非首选的放置，改用 topologyManagerPolicy best-effort。然后删除失败的 Pod。"
          },
          {
            "when": {"topologyAffinityError.cause": "unknown"},
            "title": "[[Pod {pod} ]]因 TopologyAffinityError 被拒绝（原因未知）"
          }
        ]
      },
      "SMTAlignmentError": {
        "title": "[[Pod {pod} ]]因 SMTAlignmentError 被拒绝（CPU 管理器选项 full-pcpus-only）",
        "explanation": "静态 CPU 管理器启用了策略选项 full-pcpus-only，只分配完整的物理核（一个核的全部超线程）。它在准入时拒绝了该 Pod：拓扑管理器的准入处理程序在合并并接受各提供者的 NUMA 提示之后（策略为 none 时不经提示）调用 CPU 管理器的 Allocate，而 Allocate 在取用任何 CPU 之前先按核的大小检查请求。这不是 TopologyAffinityError，原因也不在 NUMA 对齐：要么容器的 CPU 请求不是每核 CPU 数（超线程数）的整数倍，要么完全空闲的物理核不够——一个核只要有一个线程被占用或被预留，它的其余线程就不算可用。具体是哪一种情况，以及请求量、可用量和每核线程数，见下方英文原文。kubelet 1.27 至 1.31 在没有完全空闲的核时也会打印“不是整数倍”形式的错误（1.32 打印正确的形式）；kubelet 重启后，从 cpu_manager_state 恢复的 CPU 和预留的 CPU 可能把核拆开，使看起来空闲的节点也出现这个错误。",
        "remedy": "让每个使用整数 CPU 的 Guaranteed 容器请求每核 CPU 数的整数倍，并确保有足够的完全空闲的物理核：删除在半占用的核上持有独占 CPU 的 Pod（包括已完成的 Pod 和 init 容器已结束却仍占用 CPU 的 Pod），让 reservedSystemCPUs 覆盖完整的核（所有兄弟线程），或者让 Pod 运行在其他节点上；然后删除失败的 Pod，让控制器重建它。需要调整到的具体数量见下方英文原文。"
      },
      "MemoryGroupExtensionFailed": {
        "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]内存管理器无法扩展其 NUMA 提示",
        "explanation": "拓扑管理器已用某个 NUMA 提示准入了该容器，但这些 NUMA 节点上的内存不够，于是静态内存管理器试图把提示扩展到更大的一组 NUMA 节点（NUMA 组），却找不到：一个 NUMA 节点要么只承载单节点的分配，要么属于唯一的一个多节点组，不能两者兼有；而它能用的每一个更大的节点集合都会跨过一个已有单 NUMA 分配的节点（或属于另一个组）。kubelet 把这种情况报告为 UnexpectedAdmissionError，而不是 TopologyAffinityError。",
        "remedy": "把需要多个 NUMA 节点内存的 Pod 与单 NUMA 的 Pod 分开：放到专用节点上，或者让它们先于单 NUMA 的 Pod 启动；或者减小请求，使其能放进一个 NUMA 节点。然后删除失败的 Pod，让控制器重建它。",
        "variants": [
          {
            "when": {"cause": "memory-violates-allocation"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]选定的 NUMA 提示会把单 NUMA 与多 NUMA 的内存分配混在一起",
            "explanation": "拓扑管理器准入了该 Pod，随后各资源管理器为它分配资源；静态内存管理器拒绝了合并后的提示，因为它覆盖的 NUMA 节点中，既有已承载单 NUMA 分配的节点，又有其他节点（或现有组的一部分）：一个 NUMA 节点要么只承载单节点的分配，要么属于一个组，不能两者兼有。带有这项检查的 kubelet（1.32 起）会让分配失败，而不是准入一个违反该规则的放置。在 best-effort 下，CPU 或设备的提示可能把合并结果拉到这样的节点上，即使另一个 NUMA 节点能放下这些内存。",
            "remedy": "把多 NUMA 内存的 Pod 与单 NUMA 的 Pod 放在不同的节点上，或者调整请求使其能放进一个 NUMA 节点；使用 topologyManagerPolicy restricted 或 single-numa-node 时，内存管理器的偏好会在准入时就被强制执行。然后删除失败的 Pod，让控制器重建它（被准入拒绝的 Pod 不会被重试）。"
          },
          {
            "when": {"cause": "memory-extend"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]内存管理器无法扩展其 NUMA 提示"
          }
        ]
      },
      "DevicesUnavailable": {
        "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]请求的设备不可用",
        "explanation": "设备管理器无法为该 Pod 分配它请求的设备（资源名与数量见下方英文原文）。在节点或 kubelet 重启之后，设备插件往往还没有重新注册，而 kubelet 会在插件上报设备之前就准入已经绑定到该节点的 Pod。",
        "remedy": "检查该资源的设备插件是否在运行并已注册（kubelet 日志中的 \"Device plugin connected\" 或 \"Registered endpoint\"），然后删除失败的 Pod，让控制器重建它。为了避免重启后再次发生，让设备插件尽早启动（设置优先级类，开机时不拉取镜像）。",
        "variants": [
          {
            "when": {"cause": "devices-unavailable"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]健康且未分配的设备数量不足",
            "explanation": "准入该 Pod 时，设备管理器中健康且未分配的设备少于 Pod 的请求（资源名、请求量与可用量见下方英文原文）。如果这发生在节点或 kubelet 重启之后，说明设备插件还没有重新注册：kubelet 会在插件上报设备之前就准入已经绑定到该节点的 Pod。当 init 容器和应用容器都请求设备、而设备没有及时归还时，也会出现这种情况。"
          },
          {
            "when": {"cause": "device-unregistered"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]该设备资源没有在设备管理器中注册",
            "explanation": "Pod 请求了某个设备资源（名称见下方英文原文），但没有设备插件向这个 kubelet 注册该资源：插件没有运行、在 kubelet 或节点重启后尚未注册，或者注册的是另一个资源名。Pod 之所以被调度到这个节点，是因为调度器在节点状态中看到了该资源；而 kubelet 的设备管理器现在并不知道它。"
          },
          {
            "when": {"cause": "device-endpoint-missing"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]该资源的设备插件没有连接",
            "explanation": "设备管理器从检查点中知道该资源（名称见下方英文原文），但插件的端点没有连接：kubelet 重启后，资源在插件重新注册之前就被恢复为已注册，在这段时间内准入的 Pod 会失败。这是启动时的竞态，而不是设备短缺。"
          }
        ]
      },
      "UnexpectedAdmissionError": {
        "title": "[[Pod {pod} ]]因 UnexpectedAdmissionError 被拒绝",
        "explanation": "拓扑管理器准入该 Pod 之后，某个资源管理器为它分配资源时失败了。kubelet 会把任何不属于它自己的准入错误的分配错误都包装成 UnexpectedAdmissionError；被包装的错误指明了是哪个管理器（cpumanager、memorymanager、设备插件）以及缺少什么，见下方英文原文。如果证据中没有这条消息，numascope 就无法判断原因。",
        "remedy": "阅读被包装的错误：它指出了管理器以及缺少的资源。释放该资源或修正请求，然后删除失败的 Pod。如果证据中没有这条消息，请补充 Pod 的状态消息（`kubectl get pod -o yaml` 或 `kubectl describe pod`）或被拒绝前后的 kubelet 日志，再重新诊断。",
        "variants": [
          {
            "when": {"cause": "cpus-exhausted"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]可供独占的空闲 CPU 不足",
            "explanation": "拓扑管理器准入了该 Pod，随后各资源管理器为它分配资源；静态 CPU 管理器发现其共享池中的 CPU 少于容器要独占的数量（请求量与可用量见下方英文原文）。调度器统计的是它所知道的 Pod 的 CPU 请求，而 CPU 管理器统计的是真正空闲的 CPU：预留的 CPU、仍分配给已结束且未被任何应用容器复用的 init 容器的 CPU、以及未删除的已完成 Pod（已结束的 Job Pod）的 CPU，对它来说都不空闲，因此在调度器眼里节点比实际宽裕。",
            "remedy": "找出谁占用了独占 CPU（cpu_manager_state 中的条目，或 `kubectl get pods -A --field-selector spec.nodeName=NODE,status.phase=Succeeded`）：删除仍占用 CPU 的已完成 Pod（Job 请设置 ttlSecondsAfterFinished），让 init 容器的整数 CPU 请求与最大的应用容器相同以便其 CPU 被复用，并在规划 Pod 大小时考虑 reservedSystemCPUs。然后删除失败的 Pod，让控制器重建它（被准入拒绝的 Pod 不会被重试）。"
          },
          {
            "when": {"cause": ["memory-default-hint", "memory-extended-hint", "memory-no-affinity"]},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]没有哪个 NUMA 节点或 NUMA 组有足够的空闲内存",
            "explanation": "拓扑管理器准入了该 Pod，随后各资源管理器为它分配资源；静态内存管理器为容器寻找有足够空闲内存和大页的 NUMA 节点，但一个也没有找到（内存管理器的原始错误见下方英文原文）。如果日志显示内存管理器对这个 Guaranteed Pod 给出的提示为空（hints={}），说明没有任何 NUMA 节点或节点组合能容纳该请求；拓扑管理器把空答复当作“放在哪里都行”来合并并准入，所以失败直到分配时才出现。每个 NUMA 节点的空闲内存等于它的可分配内存（容量减去 reservedMemory）减去其他 Guaranteed 容器占用的内存；属于多 NUMA 组的节点只能整组使用。",
            "remedy": "把请求与 memory_manager_state 中每个 NUMA 节点的空闲内存作比较（`inspect memory_manager_state`）：删除在那里占用内存的 Pod、降低请求，或者提高可分配内存（reservedMemory、systemReserved、大页），使某个 NUMA 节点或组能容纳它。然后删除失败的 Pod，让控制器重建它（被准入拒绝的 Pod 不会被重试）。"
          },
          {
            "when": {"cause": "device-unhealthy"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]所需的设备不健康",
            "explanation": "设备插件报告该 Pod 所需资源（名称见下方英文原文）的设备不健康，因此 kubelet 拒绝在这些设备上启动 Pod。有两种情况：设备管理器按检查点为 Pod 重新准入它原先分配到的设备，而这些设备现在不健康；或者插件根本没有上报任何健康的设备——节点或 kubelet 重启后，资源先从检查点恢复、插件后上报设备，已绑定到该节点的 Pod 就会这样失败。是哪一种见下方英文原文。除了重启窗口之外，设备变得不健康是硬件或插件的问题（GPU 掉卡、ECC 或 XID 错误、驱动重置），不是调度或 NUMA 问题：挪动 Pod 不能让它恢复。",
            "remedy": "检查节点上的设备和插件（插件的日志；GPU 可用 `nvidia-smi`，并用 `dmesg` 查看 XID 错误）；在设备不健康期间 cordon 该节点，并修复或重置设备。如果只是重启窗口，等待插件上报健康的设备即可。然后删除失败的 Pod，让控制器重建它（被准入拒绝的 Pod 不会被重试）。"
          },
          {
            "when": {"cause": "device-plugin-rpc"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]设备插件的 Allocate 调用失败",
            "explanation": "设备管理器请求设备插件分配设备，插件返回了 gRPC 错误（错误原文见下方英文原文）。是插件本身拒绝或失败了（设备丢失或不健康、驱动问题、插件缺陷或崩溃）；kubelet 原样传递该错误。这是设备或其插件的问题，而不是调度或 NUMA 对齐的问题。",
            "remedy": "查看被拒绝前后设备插件的日志，并检查节点上设备的健康状况；重启或修复插件，如果设备丢失则 cordon 该节点。然后删除失败的 Pod，让控制器重建它（被准入拒绝的 Pod 不会被重试）。"
          },
          {
            "when": {"cause": "device-request-changed"},
            "title": "[[Pod {pod} 因 UnexpectedAdmissionError 被拒绝：]]某个容器更改了它的设备请求",
            "explanation": "设备管理器的检查点为该 Pod 的某个容器记录了不同的设备数量（容器名、资源和数量见下方英文原文）：Pod 规格在同一个 Pod UID 下被修改了，设备管理器无法协调。",
            "remedy": "删除该 Pod 并重新创建（获得新的 UID）；不要修改运行中 Pod 的设备请求。"
          }
        ]
      },
      "StateFileProblem": {
        "title": "状态文件[[ {evidence.0.file} ]]违反了 kubelet 自身写入时遵守的规则",
        "explanation": "kubelet 的恢复检查（格式和校验和）对该文件通过，但其中的值违反了 kubelet 的 CPU、内存或设备管理器写文件时遵守的规则（例如同一个 CPU 同时分配给两个容器，或各 NUMA 节点的合计与条目不符）：kubelet 记录了错误的状态，或者文件被手工修改后重新计算了校验和。具体的值和位置见下方英文原文。",
        "remedy": "按下方英文原文中的建议处理；在节点上用 `inspect {evidence.0.file}` 查看该文件的所有问题。若状态确实错误：排空节点，停止 kubelet，把该文件移走（保留一份副本），启动 kubelet 并 uncordon 节点。"
      },
      "CorruptCheckpoint": {
        "title": "检查点文件的校验和不匹配[[（{evidence.0.file}）]]：kubelet 不接受该文件",
        "explanation": "kubelet 在恢复 {evidence.0.file} 时重新计算其校验和，存储的校验和（数值见下方英文原文）不匹配时就拒绝该文件：文件被手工修改过、在写入时因崩溃而被截断，或者是由结构体哈希方式不同的 kubelet 写出的。",
        "remedy": "排空节点，停止 kubelet，把该文件移走（保留一份副本），启动 kubelet 并 uncordon 节点。`inspect {evidence.0.file}` 会列出该文件的所有问题。",
        "variants": [
          {
            "when": {"evidence.0.path": "/checksum", "severity": "warning"},
            "title": "重新格式化过的副本[[ {evidence.0.file}]] 与其校验和不符：可能是被编辑或截断的粘贴，也可能文件本身已损坏，仅凭副本无法区分",
            "explanation": "{evidence.0.file} 的排版与 kubelet 写出的紧凑 JSON 不同，因此它是经过 jq、编辑器或聊天工具的副本。只重新格式化不会让校验和失效，因为 kubelet 的校验和覆盖的是解码后的值而不是字节；不匹配（存储的校验和见下方英文原文）说明某个值与 kubelet 写入的不同：副本被编辑或截断了，或者文件本身已损坏。其内容仍会被分析，并标记为来自未经验证的副本。",
            "remedy": "在节点上运行检查（numascope 的 `inspect` 命令加上节点上该文件的路径，见下方英文原文），或者发送该文件的 `sha256sum` 和一份未经编辑的副本（直接 `cat`）。不要仅凭一份副本就删除节点上的文件或排空节点。"
          },
          {
            "when": {"evidence.0.line": "*"},
            "title": "kubelet 无法启动：某个检查点文件已损坏（校验和不匹配）",
            "explanation": "kubelet 在启动时重新计算其状态文件的校验和，存储的校验和不匹配时就拒绝该文件：文件被手工修改过、在写入时因崩溃而被截断，或者是由结构体布局哈希方式不同的 kubelet 写出的。是哪个文件见日志 {evidence.0.file} 第 {evidence.0.line} 行。",
            "remedy": "排空节点，停止 kubelet，把日志中点名的状态文件移走（保留一份副本，用 `inspect FILE` 分析），启动 kubelet 并 uncordon 节点。"
          },
          {
            "when": {"severity": "error"},
            "title": "检查点文件的校验和不匹配[[（{evidence.0.file}）]]：kubelet 将无法启动"
          },
          {
            "when": {"severity": "warning"},
            "title": "检查点文件的校验和不匹配[[（{evidence.0.file}）]]：kubelet 会丢弃其中的数据"
          }
        ]
      },
      "CheckpointPolicyMismatch": {
        "title": "kubelet 无法启动：配置的策略与状态文件中记录的策略不一致",
        "explanation": "启动时，CPU 或内存管理器从其状态文件恢复状态；如果文件中记录的策略与配置的策略不同，它就拒绝继续：在一种策略下做出的分配在另一种策略下不可信。在已经运行过 Pod 的节点上修改 cpuManagerPolicy 或 memoryManagerPolicy 后就会这样。配置的策略、文件中的策略和文件名见下方英文原文。",
        "remedy": "排空节点（kubectl drain NODE --ignore-daemonsets），停止 kubelet，把该状态文件移走（保留一份副本），用新策略启动 kubelet，然后 uncordon。或者把策略改回文件中记录的值（见下方英文原文）。",
        "variants": [
          {
            "when": {"evidence.1.path": "/policyName"},
            "title": "kubelet 无法启动：配置的策略与状态文件[[ {evidence.0.file}]] 中记录的策略[[ {evidence.1.quote}]] 不一致"
          }
        ]
      },
      "MemoryStateReplayFailed": {
        "title": "内存管理器的状态文件自相矛盾[[（{evidence.0.file}）]]：kubelet 下次重启后将无法启动",
        "explanation": "启动时，静态内存管理器把 memory_manager_state 中的分配重放到一个全新的机器状态上，并与文件中存储的机器状态比较；这里两者不同（差异见下方英文原文），kubelet 会以 \"the expected machine state is different from the real one\" 停止。重叠的 NUMA 组、修改过的 reservedMemory，或由记账方式不同的 kubelet 写出的文件都会导致这种情况。",
        "remedy": "安排一次排空：排空节点，停止 kubelet，把 memory_manager_state 移走，启动 kubelet 并 uncordon。在重启之前，正在运行的 kubelet 不受影响。",
        "variants": [
          {
            "when": {"evidence.0.line": "*"},
            "title": "kubelet 无法启动：内存管理器的机器状态重放失败",
            "remedy": "排空节点，停止 kubelet，把 /var/lib/kubelet/memory_manager_state 移走（保留一份副本），启动 kubelet 并 uncordon。如果 reservedMemory 或大页配置改变过，先让它们与机器一致。"
          }
        ]
      },
      "NUMATotalsChanged": {
        "title": "memory_manager_state 中各 NUMA 节点的内存总量与机器不再一致：kubelet（再次）启动时将失败",
        "explanation": "启动时，静态内存管理器根据当前的 NUMA 拓扑重建机器状态，并把 memory_manager_state 重放上去；总量的任何差异都会让 kubelet 以 \"the expected machine state is different from the real one\" 停止。哪些 NUMA 节点、哪种内存不一致以及相应数值，见下方英文原文。内核报告的每个 NUMA 节点的内存会在重启、内核或固件升级、大页配置变化或内存下线之后改变。",
        "remedy": "排空节点，停止 kubelet，把 /var/lib/kubelet/memory_manager_state 移走（保留一份副本），启动 kubelet 并 uncordon。如果 reservedMemory 或大页配置改变过，先让它们与机器一致；如果大页在开机时设置，让该设置保持稳定，使每次重启后的总量相同。",
        "variants": [
          {
            "when": {"evidence.0.line": "*"},
            "title": "kubelet 无法启动：memory_manager_state 中各 NUMA 节点的内存总量与机器不再一致"
          }
        ]
      },
      "OfflineCPUsInState": {
        "title": "cpu_manager_state 覆盖的 CPU 与在线 CPU 不一致：kubelet 无法启动",
        "explanation": "静态 CPU 管理器要求 cpu_manager_state 中的共享池加上所有独占分配正好等于在线的 CPU，否则它会以 \"current set of available CPUs ... doesn't match with CPUs in state ...\" 停止。哪些 CPU 不一致见下方英文原文。自文件写入以来下线、热插入或被隔离的 CPU 会导致这种情况。",
        "remedy": "如果这不是有意为之，让这些 CPU 重新上线；否则排空节点，停止 kubelet，把 /var/lib/kubelet/cpu_manager_state 移走，启动 kubelet 并 uncordon。"
      },
      "TooManyNUMANodes": {
        "title": "NUMA 节点数超过拓扑管理器的上限：kubelet 无法启动",
        "explanation": "合并提示的代价随 NUMA 节点组合的数量增长，因此拓扑管理器拒绝 NUMA 节点多于上限（默认 8 个）的机器，除非用策略选项 max-allowable-numa-nodes 提高上限；此时只要策略不是 none，kubelet 就无法启动（GB200 级别的机器有 34 个 NUMA 节点）。本机的节点数与生效的上限见下方英文原文。",
        "remedy": "添加 `topologyManagerPolicyOptions: {max-allowable-numa-nodes: \"N\"}`，N 不小于机器的 NUMA 节点数（1.31 起为 beta，1.35 起 GA；1.31 之前还需启用 TopologyManagerPolicyAlphaOptions 特性门控）。N 越大准入越慢；可用 topology_manager_admission_duration_ms 指标衡量。"
      },
      "PolicyNameCase": {
        "title": "策略名称的大小写不对：kubelet 无法启动",
        "explanation": "策略名区分大小写，而且两个管理器并不一致：内存管理器的策略是 `None` 和 `Static`（首字母大写），CPU 管理器的是 `none` 和 `static`。配置的值（见下方英文原文）两者都不匹配，所以管理器以 `unknown policy` 失败，kubelet 在启动时停止。",
        "remedy": "把该字段设为大小写正确的策略名（cpuManagerPolicy 用 none 或 static，memoryManagerPolicy 用 None 或 Static），然后重启 kubelet。",
        "variants": [
          {
            "when": {"evidence.0.path": "/memoryManagerPolicy"},
            "title": "memoryManagerPolicy[[ {evidence.0.quote}]] 不是 kubelet 认识的策略名：kubelet 无法启动",
            "remedy": "把 memoryManagerPolicy 设为 None 或 Static（首字母大写），然后重启 kubelet。"
          },
          {
            "when": {"evidence.0.path": "/cpuManagerPolicy"},
            "title": "cpuManagerPolicy[[ {evidence.0.quote}]] 不是 kubelet 认识的策略名：kubelet 无法启动",
            "remedy": "把 cpuManagerPolicy 设为 none 或 static（小写），然后重启 kubelet。"
          }
        ]
      },
      "FractionalCPUGuaranteed": {
        "title": "[[Guaranteed Pod {pod} 中]]某个容器的 CPU 请求不是整数：它不会获得独占 CPU，也不做 CPU 对齐",
        "explanation": "静态 CPU 管理器只给 Guaranteed Pod 中 CPU 请求为整数的容器分配独占 CPU。[[该容器请求了 {evidence.0.quote} 个 CPU。]]非整数的请求在共享池中运行，CPU 管理器也不会为它向拓扑管理器提供提示，因此即使在 single-numa-node 下，它的 CPU 也不会与内存或设备对齐。容器名见下方英文原文。",
        "remedy": "如果该容器需要独占且 NUMA 对齐的 CPU，请求整数个 CPU，并让 requests 等于 limits；否则这是预期的行为。"
      },
      "DeviceWithoutNUMATopology": {
        "title": "某个设备资源没有 NUMA 拓扑信息：它永远不会被对齐",
        "explanation": "该资源（名称见下方英文原文）的设备插件上报设备时没有附带 NUMA 节点，因此设备管理器不会为它们向拓扑管理器提供偏好，single-numa-node 或 restricted 也无法让它们靠近 Pod 的 CPU 和内存。有些插件默认不上报拓扑，或者在虚拟机上读不到拓扑。",
        "remedy": "在设备插件中启用 NUMA 拓扑上报（每个设备的 Topology.Nodes），或者接受该资源在放置时不做对齐。"
      },
      "DeviceCheckpointUnreadable": {
        "title": "设备管理器无法恢复其检查点[[ {evidence.0.file}]]，启动时没有设备分配记录",
        "explanation": "与 CPU 和内存管理器不同，设备管理器读不了检查点时不会让 kubelet 停止：它以空状态启动。运行中的 Pod 保留着它们的设备，但 kubelet 不再知道这一点，可能把同一个设备分给新 Pod，并报告错误的 NUMA 亲和性。读取失败的原因见下方英文原文。",
        "remedy": "排空节点并重启 kubelet，让所有使用设备的 Pod 重新准入。",
        "variants": [
          {
            "when": {"evidence.0.line": "*"},
            "title": "设备管理器无法读取 kubelet_internal_checkpoint，启动时没有设备分配记录",
            "remedy": "排空节点并重启 kubelet，让所有使用设备的 Pod 重新准入；用 `inspect /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint` 检查该文件。"
          }
        ]
      },
      "StaleStateEntry": {
        "title": "状态文件[[ {evidence.0.file}]] 中有 PodResources 没有列出的容器的条目[[（Pod {pod}）]]",
        "explanation": "状态文件 {evidence.0.file} 仍为某个容器记录着独占的 CPU 或内存，但 kubelet 的 PodResources API 没有报告任何持有它们的运行中容器（容器名以及 CPU 或内存见下方英文原文）。这个条目是已经不存在的 Pod 留下的：kubelet 只在下次准入 Pod 或进行协调时才清理过时的条目。在那之前，这些 CPU 不在共享池中，新的 Guaranteed Pod 也拿不到，新 Pod 的 NUMA 提示会按它们已被占用来计算；这些内存在相应的 NUMA 节点上仍算作已预留，跨多个节点时还会把这些节点绑成一个组。",
        "remedy": "在该节点上准入任意一个新 Pod 就会触发 kubelet 的过时状态清理；如果条目仍然存在，排空节点，停止 kubelet，把 {evidence.0.file} 移走，然后重启 kubelet。"
      },
      "TerminatedPodHoldsResources": {
        "title": "[[Pod {pod} ]]已经结束，但 PodResources 仍报告它持有独占资源",
        "explanation": "[[该 Pod 的阶段为 {evidence.0.quote}。]]kubelet 会在 PodResources List 中报告已终止的 Pod，并在 Pod 对象被删除之前一直保留分配给它们的 CPU 和内存。基于 PodResources 的监控会多算已分配的资源，这些资源也不会提供给新 Pod。",
        "remedy": "删除已结束的 Pod[[ {pod}]]（`kubectl delete pod -n <命名空间> <名称>`）；Job 请设置 ttlSecondsAfterFinished，以便自动清理已结束的 Pod。"
      },
      "UnexplainedNUMAGroup": {
        "title": "NUMA 节点[[ {evidence.0.quote}]] 被绑成了一个内存组，但当前没有任何分配能解释它",
        "explanation": "{evidence.0.file} 把这些 NUMA 节点编为一组（每个节点的 cells 中都列出了其他节点），但没有任何条目的内存块恰好跨越这些节点。当一个容器的内存跨越多个节点时会形成组，最后一个分配离开时组会解散；残留下来的组会让单 NUMA 的 Pod 避开这些节点（它们的提示会跳过多节点组中的节点），并让 kubelet 启动时的重放失败。",
        "remedy": "排空节点，停止 kubelet，把 memory_manager_state 移走并重启 kubelet，让这些组根据运行中的 Pod 重建。"
      },
      "CPUsHeldByFinishedInitContainer": {
        "title": "[[Pod {pod} 的]]某个 init 容器已经结束，但仍占用独占 CPU",
        "explanation": "静态 CPU 管理器给该 init 容器分配了独占 CPU。它结束后，没有被 Pod 中任何应用容器复用的那些 CPU 仍在 cpu_manager_state 中分配给它：它们既不在共享池中，其他 Guaranteed Pod 也用不上，直到整个 Pod 被删除。在繁忙的节点上，这会让后来的 Pod 以 TopologyAffinityError 或 SMTAlignmentError 失败，尽管这些 CPU 实际上是空闲的。容器名与 CPU 编号见下方英文原文。",
        "remedy": "让 init 容器的整数 CPU 请求与最大的应用容器相同（这样它们的 CPU 会被复用），或者让它们成为 Burstable（不请求独占 CPU）。重启该 Pod 会释放这些 CPU。"
      },
      "CPUsHeldByCompletedPod": {
        "title": "[[Pod {pod} ]]已经结束，但其独占资源仍被分配",
        "explanation": "[[该 Pod 的阶段为 {evidence.1.quote}，]]但 kubelet 的状态仍为它分配着独占资源（是哪些 CPU 或内存见下方英文原文）。CPU 和内存管理器在容器被删除时才释放其资源，而已结束 Pod 的容器会一直保留到 Pod 对象被删除，因此这些资源不在共享池中，新 Pod 也拿不到。如果它属于某个 Job：已完成的 Job Pod 会一直保留，直到 Job 的 ttlSecondsAfterFinished 或历史记录上限将其删除。",
        "remedy": "删除已结束的 Pod[[ {pod}]]（`kubectl delete pod -n <命名空间> <名称>`）；Job 请设置 ttlSecondsAfterFinished。"
      },
      "KubeletStartFailed": {
        "title": "kubelet 无法正常恢复状态文件[[ {evidence.0.file}]]",
        "explanation": "恢复该文件会像 kubelet 自己的恢复路径那样失败（原因见下方英文原文）。",
        "remedy": "排空节点，停止 kubelet，把该文件移走（保留一份副本），启动 kubelet 并 uncordon。",
        "variants": [
          {
            "when": {"evidence.0.line": "*"},
            "title": "kubelet 启动容器管理器失败",
            "explanation": "kubelet 在启动 CPU、内存、设备或 DRA 管理器时停止了；被包装的错误见下方英文原文（日志 {evidence.0.file} 第 {evidence.0.line} 行）。",
            "remedy": "阅读被包装的错误；如果 kubelet 点名了某个状态文件，排空节点，把该文件移走，然后重启 kubelet。"
          },
          {
            "when": {"severity": "error"},
            "title": "kubelet 无法恢复状态文件[[ {evidence.0.file}]]，将无法启动"
          },
          {
            "when": {"severity": "warning"},
            "title": "kubelet 无法恢复状态文件[[ {evidence.0.file}]]，会丢弃其中的数据"
          }
        ]
      },
      "EvidenceUnreadable": {
        "title": "证据无法读取",
        "explanation": "numascope agent 无法读取或解码某个输入（状态文件、kubelet 配置、sysfs 或 PodResources API；是哪一个以及具体错误见下方英文原文），基于它的检查没有运行，报告因此不完整。",
        "remedy": "按下方英文原文所说，用相应的参数（--kubelet-config、--state-dir、--sysfs 或 PodResources 套接字）指向正确的路径，并以只读方式挂载；对无法解码的状态文件，在副本上运行 `inspect` 查看所有问题，并在 kubelet 重启之前排空节点、把该文件移走。"
      },
      "KubeletError": {
        "title": "kubelet 报告了一个错误",
        "explanation": "kubelet 打印了一条它自己的错误消息（原文、它在 kubelet 代码中的含义以及打印它的版本见下方英文原文）。numascope 没有针对这条消息的更具体的结论。",
        "remedy": "按下方英文原文的建议处理；它点名了 kubelet 所说的文件、参数或资源。"
      },
      "KubeletFlagInvalid": {
        "title": "kubelet 拒绝了它的命令行参数",
        "explanation": "kubelet 无法解析它的命令行（未知或已移除的参数、错误的值类型，具体见下方英文原文），因此在启动任何管理器之前就退出了。",
        "remedy": "修正下方英文原文点名的参数（在 kubelet 的 systemd 单元、kubeadm-flags.env 或发行版的配置中），然后重启 kubelet。"
      },
      "KubeletConfigInvalid": {
        "title": "kubelet 拒绝了它的配置",
        "explanation": "kubelet 的配置文件、配置片段、参数值或特性门控未能加载或校验（具体见下方英文原文），kubelet 因此退出。",
        "remedy": "修正下方英文原文点名的字段或参数，然后重启 kubelet。"
      },
      "AdmissionRejected": {
        "title": "[[Pod {pod} ]]在准入时被拒绝",
        "explanation": "拓扑管理器和资源管理器之外的某个准入处理器拒绝了该 Pod（原因见下方英文原文）。",
        "remedy": "按下方英文原文所说处理拒绝原因，然后删除被拒绝的 Pod，让它的控制器重新创建它。"
      },
      "DevicePluginFailed": {
        "title": "设备插件出错",
        "explanation": "某个设备插件无法注册、连接或应答（具体见下方英文原文），它提供的资源因此不可用。",
        "remedy": "查看该设备插件的日志并确认它在运行且已向 kubelet 注册，然后按下方英文原文处理。"
      },
      "ContainerStartFailed": {
        "title": "容器无法启动",
        "explanation": "Pod 已被准入，但它的容器在启动时因设备、DRA 或 cgroup 的准备失败而无法启动（具体见下方英文原文）。",
        "remedy": "按下方英文原文点名的插件或驱动处理错误，然后删除该 Pod 让它被重新创建。"
      },
      "DRAPrepareFailed": {
        "title": "准备 Pod 的动态资源失败",
        "explanation": "kubelet 通过 DRA 驱动准备 Pod 的 ResourceClaim 时失败（具体见下方英文原文），Pod 因此停留在 ContainerCreating。",
        "remedy": "查看下方英文原文点名的 DRA 驱动的日志，并确认它在该节点上运行且已注册。"
      },
      "DRADriverNotRegistered": {
        "title": "DRA 驱动没有在节点上注册",
        "explanation": "某个 ResourceClaim 的驱动没有在该节点的 kubelet 上注册，或者它的注册被拒绝（驱动名见下方英文原文）。",
        "remedy": "确认该驱动的 kubelet 插件在此节点上运行，并查看它的注册日志。"
      },
      "KubeletPanic": {
        "title": "kubelet 崩溃（Go panic）",
        "explanation": "一次 Go panic 立即结束了 kubelet 进程：在它重新启动之前，不会准入任何 Pod，也没有任何管理器在运行（panic 的内容和代码位置见下方英文原文）。如果 panic 来自 kubelet 在启动时恢复或重新准入的内容，它每次重启都会再次 panic。",
        "remedy": "保留完整的 panic 及其 goroutine 帧和 kubelet 版本（kubelet --version），这是应当向上游报告的 kubelet 缺陷；如果帧位于某个管理器恢复状态的代码中，排空节点并把该管理器的状态文件移走（保留副本）可以让 kubelet 启动。"
      },
      "CheckpointVersionSkew": {
        "title": "当前的 kubelet 接受该状态文件，但更新的 kubelet 会拒绝它：升级后 kubelet 将无法启动",
        "explanation": "证据显示的 kubelet 版本能恢复这个状态文件，但最新 kubelet 的恢复路径会拒绝它（原因见下方英文原文）。升级之后，在把该文件移走之前 kubelet 不会启动（或会丢弃其中的数据）。",
        "remedy": "在升级该节点的 kubelet 之前，先排空节点并把该状态文件移走（保留副本），让新的 kubelet 重新写一份。"
      },
      "KubeletExited": {
        "title": "systemd 报告 kubelet 进程退出",
        "explanation": "kubelet 的单元因错误而停止，systemd 正在重启它；证据中没有说明它为什么停止。kubelet 会在退出前的最后几行打印原因。",
        "remedy": "补充 kubelet 在退出之前自己的日志行（journalctl -u kubelet -b --no-pager | grep -B 30 'Main process exited'），然后重新运行诊断。"
      },
      "HintNotPreferred": {
        "title": "日志显示了[[ Pod {pod} ]]的非首选 NUMA 提示，但没有显示它是否被准入",
        "explanation": "拓扑管理器把该容器各提供者的提示合并成了一个非首选（non-preferred）的提示：没有一种放置能让每种资源都落在它单独使用时最窄的 NUMA 节点集合上。接下来发生什么取决于 topologyManagerPolicy：best-effort 会在不对齐的情况下准入该 Pod；restricted 和 single-numa-node 会以 TopologyAffinityError 拒绝它。日志在结果之前就结束了（各提供者的提示和已知的策略见下方英文原文）。",
        "remedy": "补充 kubelet 配置（topologyManagerPolicy），以及该 Pod 在 \"Best TopologyHint\" 之后的日志行或 `kubectl describe pod` 的输出，然后重新运行诊断。"
      },
      "PodAdmitted": {
        "title": "[[Pod {pod} ]]已被准入",
        "explanation": "拓扑管理器准入了该 Pod：合并后的 NUMA 提示满足策略；在 none 策略下，拓扑管理器不询问任何提示提供者、从不拒绝 Pod，CPU、内存和设备的分配不考虑 NUMA 节点。各容器的最佳提示、实际放置和策略见下方英文原文；非首选（non-preferred）的提示表示资源被放在了比最窄的放置更多的 NUMA 节点上。",
        "remedy": "无需处理；如果策略是 none 而工作负载需要 NUMA 对齐，请改用 restricted 或 single-numa-node。",
        "variants": [
          {
            "when": {"evidence.0.line": "*"},
            "title": "[[Pod {pod} ]]已被拓扑管理器（best-effort 策略）准入，但没有 NUMA 对齐",
            "explanation": "kubelet 的日志显示该容器合并后的 NUMA 提示不是首选（non-preferred）：没有一种放置能让每种资源都落在它单独使用时最窄的 NUMA 节点集合上。best-effort 策略仍然准入该 Pod，CPU、内存和设备管理器随后尽量在该提示的 NUMA 节点上分配，因此资源没有对齐（各提供者的提示见下方英文原文）。",
            "remedy": "如果工作负载能容忍跨 NUMA 访问，无需处理；否则让请求能放进一个 NUMA 节点（减少 CPU 或设备数量，或使用与空闲 CPU 和内存同在一个 NUMA 节点上的设备），或改用 restricted 或 single-numa-node 来拒绝这样的放置。"
          },
          {
            "when": {"severity": "warning"},
            "explanation": "kubelet 的日志显示拓扑管理器准入了该 Pod，但 numascope 对合并过程的模拟结果与日志不一致：实际生效的策略或选项与证据所示的不同（细节见下方英文原文）。非首选（non-preferred）的提示表示资源被放在了比最窄的放置更多的 NUMA 节点上。",
            "remedy": "无需处理。"
          }
        ]
      },
      "InvalidTopologyManagerConfig": {
        "title": "kubelet 的拓扑管理器配置有问题",
        "explanation": "kubelet 在启动时校验其配置并拒绝了这里的值（详情见下方英文原文）。",
        "remedy": "按下方英文原文修正该字段，然后重启 kubelet。",
        "variants": [
          {
            "when": {"evidence.0.path": "/topologyManagerPolicy"},
            "title": "topologyManagerPolicy[[ {evidence.0.quote}]] 不是有效的策略：kubelet 无法启动",
            "explanation": "kubelet 在启动时校验其配置，遇到这种情况会以 \"topologyManagerPolicy (--topology-manager-policy) ... must be one of: [none best-effort restricted single-numa-node]\" 停止。策略名为小写，并用连字符分隔。",
            "remedy": "把 topologyManagerPolicy 设为 none、best-effort、restricted 或 single-numa-node，然后重启 kubelet。"
          },
          {
            "when": {"evidence.0.path": "/topologyManagerScope"},
            "title": "topologyManagerScope[[ {evidence.0.quote}]] 不是有效的作用域：kubelet 无法启动",
            "explanation": "kubelet 在启动时校验其配置，只接受 container 和 pod 两种作用域。",
            "remedy": "把 topologyManagerScope 设为 container（默认值）或 pod，然后重启 kubelet。"
          },
          {
            "when": {"evidence.0.path": "/topologyManagerPolicyOptions"},
            "title": "topologyManagerPolicyOptions 被拒绝：kubelet 无法启动",
            "explanation": "拓扑管理器在 kubelet 启动时解析其策略选项，遇到第一个错误的选项就停止（错误见下方英文原文）。",
            "remedy": "修正或删除该选项（已知的选项：prefer-closest-numa-nodes=true|false，max-allowable-numa-nodes=N 且 N >= 8）；并启用该选项的成熟度所需的特性门控。"
          },
          {
            "when": {"severity": "warning"},
            "title": "kubelet 会拒绝或忽略这份配置中的某项设置",
            "explanation": "kubelet 读取配置时比 numascope 更严格：--config 文件必须带有 kind: KubeletConfiguration 和 apiVersion: kubelet.config.k8s.io/v1beta1；命令行参数在其他一切之前解析，遇到第一个被拒绝的参数就退出；配置的键区分大小写，大小写拼错的键会被当作未知字段丢弃（只在日志中警告），该设置取默认值。这里是哪一种情况以及相应的错误，见下方英文原文。从工单中粘贴的片段常常漏掉文件头，所以这不能证明节点上的文件也缺少它；如果节点上的 kubelet 正在运行，它的命令行就与这份粘贴不同。",
            "remedy": "按下方英文原文所说修正：补上文件头（apiVersion: kubelet.config.k8s.io/v1beta1 和 kind: KubeletConfiguration）、修正参数（单个短横线是简写：请写 --name=value；--cpu-manager-policy-options 每个选项写一次），或者按 KubeletConfiguration 参考文档的拼写书写键名，然后重启 kubelet。"
          },
          {
            "when": {"severity": "info"},
            "title": "kubelet 配置的来源说明",
            "explanation": "kubelet 读取并叠加其配置来源的方式（先读 --config 文件及其 drop-in 目录，再应用命令行参数，参数优先）决定了 numascope 使用的值；这条说明指出某个值来自哪里，或者哪些内容无法读取（见下方英文原文）。如果只给了命令行，而其中指定的 --config 文件没有给出，那么没有参数设置的字段都按 kubelet 的默认值处理，尽管该文件可能设置了它们（拓扑、CPU 和内存管理器的策略常在文件中设置）。",
            "remedy": "如果 numascope 使用的值就是节点上的值，无需处理；否则补充缺失的来源：--config 文件、/configz 的输出（kubectl get --raw /api/v1/nodes/NODE/proxy/configz 给出合并后的结果），或者 ps auxww 得到的完整命令行。"
          }
        ]
      },
      "ReservationMissing": {
        "title": "cpuManagerPolicy 为 static，但没有为系统预留任何 CPU：kubelet 无法启动",
        "explanation": "静态 CPU 管理器只把未预留的 CPU 用于独占分配；一个都没有预留时它拒绝启动：\"[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero\"。reservedSystemCPUs 以及 kubeReserved、systemReserved 中的 cpu 都可以设置预留；如果这份配置什么都没设，除非 kubelet 的命令行设置了 --reserved-cpus、--system-reserved 或 --kube-reserved，否则它无法启动。",
        "remedy": "设置 reservedSystemCPUs（--reserved-cpus，例如 \"0\"；在 SMT 机器上最好是完整的核及其兄弟线程，例如 \"0,64\"），或者 systemReserved/kubeReserved 中的 cpu，然后重启 kubelet。",
        "variants": [
          {
            "when": {"evidence.0.path": "/memoryManagerPolicy"},
            "title": "memoryManagerPolicy 为 Static，但没有 reservedMemory：kubelet 无法启动",
            "explanation": "静态内存管理器需要知道每个 NUMA 节点为系统预留了多少内存，reservedMemory 中没有时它以 \"[memorymanager] you should specify the system reserved memory\" 停止（除非命令行设置了 --reserved-memory）。",
            "remedy": "添加按 NUMA 节点划分的 reservedMemory 条目，使其内存总和等于 systemReserved + kubeReserved + memory.available 硬驱逐阈值，然后重启 kubelet。"
          }
        ]
      },
      "ReservedMemoryMismatch": {
        "title": "kubelet 无法启动：reservedMemory 与 Node Allocatable 或本机的 NUMA 节点不符",
        "explanation": "Static 内存管理器在启动时检查 reservedMemory：按内存类型求和必须正好等于 Node Allocatable 预留的量（systemReserved + kubeReserved + 硬驱逐阈值 memory.available，默认 100Mi）；每个条目只能指向本机存在的 NUMA 节点（不同 NUMA 布局的机器共用一份配置，或者 sub-NUMA clustering、NPS 等 BIOS 设置改变了节点编号时会出错）；同一个 NUMA 节点和资源不能出现两次（重复的 --reserved-memory 参数会累加，drop-in 和 unit 文件中各写一次就会这样）。这次违反的是哪一条以及相关数值，见下方英文原文。",
        "remedy": "按下方英文原文修正 reservedMemory（--reserved-memory）：让总和等于 Node Allocatable 预留的量、只指向本机的 NUMA 节点（numactl -H 可以列出），每个 NUMA 节点和资源只保留一个条目，然后重启 kubelet。",
        "variants": [
          {
            "when": {"evidence.0.path": "/reservedMemory"},
            "title": "reservedMemory 的总和与 Node Allocatable 预留的内存不相等：kubelet 无法启动",
            "explanation": "使用 Static 内存管理器时，所有 NUMA 节点的 reservedMemory 按内存类型求和后，必须等于 Node Allocatable 预留的内存：systemReserved + kubeReserved + memory.available 硬驱逐阈值。这里两者不相等（各项数值见下方英文原文），所以 kubelet 会以 \"the total amount ... of type \\\"memory\\\" is not equal to the value ... determined by Node Allocatable feature\" 停止，除非它的命令行把 --system-reserved、--kube-reserved、--eviction-hard 或 --reserved-memory 设成了其他值（参数优先于文件）。",
            "remedy": "让 reservedMemory 条目的总和正好等于 systemReserved + kubeReserved + memory.available 驱逐阈值，然后重启 kubelet。"
          }
        ]
      },
      "NRTDisagreesWithKubelet": {
        "title": "NodeResourceTopology 与 kubelet 不一致",
        "explanation": "拓扑感知调度器看到的并不是 kubelet 实际持有的。NodeResourceTopology 对象（由导出器写入）与 kubelet 的状态文件和 PodResources 之间的差异见下方英文原文：对象显示的空闲资源比实际多时，调度器会把 Pod 送到会以 TopologyAffinityError 拒绝它们的节点；显示得比实际少时，调度器会让 Pod 远离本来能容纳它们的 NUMA 节点；策略属性不对时，调度器的 NUMA 过滤器（NodeResourceTopologyMatch）模拟的是与 kubelet 不同的策略或作用域。",
        "remedy": "kubelet 自己的文件和 PodResources 才是节点的真实情况；NodeResourceTopology 是导出器的副本，是过时的一方。检查导出器（resource-topology-exporter 或 NFD 的 nfd-topology-updater）是否在该节点上运行并更新该对象：它的 --kubelet-state-dir 必须是 kubelet 的根目录（通常是 /var/lib/kubelet），这样它才能察觉状态变化；--podresources-socket 必须是 kubelet 的 pod-resources 套接字；刷新间隔（--sleep-interval）决定了对象最多会过时多久。重启导出器可以立即重写该对象。如果证据是在不同时间收集的，请在下结论之前同时收集 NodeResourceTopology 和节点上的文件。导出器在启动时读取 kubelet 配置：修改 topologyManagerPolicy 或 topologyManagerScope 之后要重启它（并检查它的 --kubelet-config-file）。"
      },
      "PastedCheckpointCopy": {
        "title": "粘贴的检查点副本（经过修复或脱敏），不是节点上的文件",
        "explanation": "这份输入不是 kubelet 写出的原样文件：它在读取之前被修复过（例如被截断、带有注释或经过 jq 处理），或者其中的值被脱敏了。哪里被修复、能验证什么、还缺少什么，见下方英文原文。基于其内容得出的结论都会被标记为来自未经验证的副本。",
        "remedy": "节点上无需因为这份粘贴而做任何修改。要检查节点自己的文件，请在节点上运行 numascope 的 `inspect` 命令加上该文件的路径（见下方英文原文），或者发送该文件的 `sha256sum` 以及一份未经编辑的副本（直接 `cat`，不经 jq、不加注释、不截断）。"
      }
    }
  }
};

// Problem texts of state files (package statefile) and of the playground's
// own input checks, keyed on the remedy's exact English (or its constant
// beginning), refined by the problem's path and severity. Each English
// remedy here must still exist in the Go sources (playground/i18n_test.go).
const PROBLEM_TEXTS = {
  "zh-CN": [
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file)", "path": "^/(dataChecksum|checksum)$"},
      "message": "存储的校验和与 kubelet 校验的任何布局都不匹配，kubelet 会拒绝启动（数值和 kubelet 的错误见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除 cpu_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file)", "path": "^/entries$"},
      "message": "这是 v1 格式的 cpu_manager_state（条目以容器 ID 为键，kubelet ≤1.17），当前的 kubelet 无法读取它。",
      "remedy": "排空节点，停止 kubelet，删除 cpu_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete cpu_manager_state and start the kubelet again (it rebuilds the file)"},
      "message": "kubelet 会拒绝这份 cpu_manager_state，拒绝后将无法启动（具体原因见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除 cpu_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete memory_manager_state and start the kubelet again (it rebuilds the file)", "path": "^/(dataChecksum|checksum)$"},
      "message": "存储的校验和与 kubelet 对这种格式校验的任何布局都不匹配，kubelet 会拒绝启动（数值和 kubelet 的错误见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除 memory_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete memory_manager_state and start the kubelet again (it rebuilds the file)"},
      "message": "kubelet 无法加载这份 memory_manager_state，拒绝后将无法启动（具体原因见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除 memory_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete the file and start the kubelet again (it rebuilds the file)"},
      "message": "证据所示的 kubelet 版本会拒绝该文件而无法启动，而最新的 kubelet 接受它（版本与原因见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除该文件，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "nothing to do for the kubelet itself: it starts with an empty device allocation and device plugins re-register; running pods keep their devices, but new pods may be given devices already in use until those pods restart", "path": "^/Checksum$"},
      "message": "存储的校验和与内容不匹配；设备管理器会记录 \"Continue after failing to read checkpoint file. Device allocation info may NOT be up-to-date\"，并丢弃文件中的所有分配（数值见下方英文原文）。",
      "remedy": "kubelet 本身无需处理：它以空的设备分配启动，设备插件会重新注册；运行中的 Pod 保留着它们的设备，但在这些 Pod 重启之前，新 Pod 可能被分到已在使用中的设备。"
    },
    {
      "match": {"remedy": "nothing to do for the kubelet itself: it starts with an empty device allocation and device plugins re-register; running pods keep their devices, but new pods may be given devices already in use until those pods restart", "path": "^/Data/PodDeviceEntries$"},
      "message": "这是 v1 格式的设备检查点（DeviceIDs 是平铺的，kubelet ≤1.19）；当前的 kubelet 无法读取它，会丢弃其中的数据。",
      "remedy": "kubelet 本身无需处理：它以空的设备分配启动，设备插件会重新注册；运行中的 Pod 保留着它们的设备，但在这些 Pod 重启之前，新 Pod 可能被分到已在使用中的设备。"
    },
    {
      "match": {"remedy": "nothing to do for the kubelet itself: it starts with an empty device allocation and device plugins re-register; running pods keep their devices, but new pods may be given devices already in use until those pods restart"},
      "message": "kubelet 无法读取该设备检查点，设备管理器会在没有分配数据的情况下启动（原因见下方英文原文）。",
      "remedy": "kubelet 本身无需处理：它以空的设备分配启动，设备插件会重新注册；运行中的 Pod 保留着它们的设备，但在这些 Pod 重启之前，新 Pod 可能被分到已在使用中的设备。"
    },
    {
      "match": {"remedy": "nothing to do for the kubelet itself: it starts with an empty device allocation and device plugins re-register; restart the pods that use devices"},
      "message": "证据所示的 kubelet 版本会丢弃该文件中的设备分配，而最新的 kubelet 接受它（版本与原因见下方英文原文）。",
      "remedy": "kubelet 本身无需处理：它以空的设备分配启动，设备插件会重新注册；请重启使用设备的 Pod。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete dra_manager_state and start the kubelet again; prepared claims are prepared again when their pods restart", "path": "^/Checksum$"},
      "message": "存储的 CRC32 与数据部分不匹配，kubelet 会拒绝启动（数值见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除 dra_manager_state，然后重新启动 kubelet；已准备好的资源声明（claim）会在其 Pod 重启时重新准备。"
    },
    {
      "match": {"remedy": "drain the node, stop the kubelet, delete dra_manager_state and start the kubelet again; prepared claims are prepared again when their pods restart"},
      "message": "kubelet 无法读取这份 dra_manager_state，会拒绝启动（原因见下方英文原文）。",
      "remedy": "排空节点，停止 kubelet，删除 dra_manager_state，然后重新启动 kubelet；已准备好的资源声明（claim）会在其 Pod 重启时重新准备。"
    },
    {
      "match": {"remedyPrefix": "either configure the kubelet with --cpu-manager-policy=", "path": "^/policyName$", "severity": "error"},
      "message": "配置的 CPU 管理器策略与状态检查点中记录的策略不同（两个策略名见下方英文原文）；kubelet 会拒绝启动。",
      "remedy": "要么用检查点中记录的策略配置 kubelet 的 --cpu-manager-policy（取值见下方英文原文），要么排空节点，停止 kubelet，删除 cpu_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedyPrefix": "configure the kubelet with --memory-manager-policy=", "path": "^/policyName$", "severity": "error"},
      "message": "配置的内存管理器策略与状态检查点中记录的策略不同（两个策略名见下方英文原文）；kubelet 会拒绝启动。",
      "remedy": "要么用检查点中记录的策略配置 kubelet 的 --memory-manager-policy（取值见下方英文原文），要么排空节点，停止 kubelet，删除 memory_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "the CPU manager policies are none and static"},
      "message": "文件中的策略名不是 CPU 管理器的策略（见下方英文原文）。",
      "remedy": "CPU 管理器的策略是 none 和 static。"
    },
    {
      "match": {"remedy": "the memory manager policies are None and Static (capitalised)"},
      "message": "文件中的策略名不是内存管理器的策略（见下方英文原文）。",
      "remedy": "内存管理器的策略是 None 和 Static（首字母大写）。"
    },
    {
      "match": {"remedy": "a kubelet never writes this: the file was edited or produced by another tool; fix the value or let the kubelet rewrite the file"},
      "message": "这里不符合该格式已发布的 schema（schema 名称与具体规则见下方英文原文）。",
      "remedy": "kubelet 从不会写出这样的内容：该文件被编辑过或由其他工具生成；请修正该值，或者让 kubelet 重写该文件。"
    },
    {
      "match": {"remedy": "fix the first ones and check again"},
      "message": "还有更多不符合 schema 的地方没有列出（数量见下方英文原文）。",
      "remedy": "先修正前面列出的问题，再重新检查。"
    },
    {
      "match": {"remedy": "let the kubelet rewrite the file (it writes a checksummed v4 checkpoint); restart the pods that relied on pod-level CPUs"},
      "message": "v3 校验和为 0，kubelet 的 v3 校验会拒绝它；kubelet 于是退回到 v2 读取器，该读取器跳过为 0 的校验和但不认识 podEntries，因此会接受文件并忘记 Pod 级别的 CPU 分配（涉及的 Pod 数见下方英文原文）。",
      "remedy": "让 kubelet 重写该文件（它会写出带校验和的 v4 检查点）；重启依赖 Pod 级别 CPU 的 Pod。"
    },
    {
      "match": {"remedy": "let the kubelet rewrite the file (it writes a checksummed v3 checkpoint); restart the pods that relied on pod-level memory"},
      "message": "v2 校验和为 0，kubelet 的 v2 校验会拒绝它；kubelet 于是退回到 v1 读取器，该读取器跳过为 0 的校验和但不认识 podEntries，因此会接受文件并忘记 Pod 级别的内存分配（涉及的 Pod 数见下方英文原文）。",
      "remedy": "让 kubelet 重写该文件（它会写出带校验和的 v3 检查点）；重启依赖 Pod 级别内存的 Pod。"
    },
    {
      "match": {"remedyPrefix": "the exclusive CPUs of a container must not be in the shared pool; "},
      "message": "某个容器的独占 CPU 同时出现在默认（共享）CPU 集合中（容器与 CPU 编号见下方英文原文）。",
      "remedy": "容器的独占 CPU 不能在共享池中；排空节点，停止 kubelet，删除 cpu_manager_state，然后重新启动 kubelet（它会重建该文件）。"
    },
    {
      "match": {"remedy": "the none policy never assigns exclusive CPUs; the entries were probably written under another policy"},
      "message": "策略为 none，却有 Pod 持有独占 CPU（Pod 数见下方英文原文）。",
      "remedy": "none 策略从不分配独占 CPU；这些条目很可能是在另一种策略下写入的。"
    },
    {
      "match": {"remedy": "the outer copy is only read by older kubelets after a downgrade; a kubelet restart rewrites it"},
      "message": "外层（回滚用）副本与 kubelet 使用的数据部分不同。",
      "remedy": "只有降级后的旧版 kubelet 才会读取外层副本；重启 kubelet 会重写它。"
    },
    {
      "match": {"remedy": "only matters when downgrading the kubelet; a kubelet restart rewrites it"},
      "message": "外层（回滚用）副本的校验和与其内容不符：旧版 kubelet 会拒绝这个文件（数值见下方英文原文）。",
      "remedy": "只在降级 kubelet 时才有影响；重启 kubelet 会重写它。"
    },
    {
      "match": {"remedy": "check that this is a file a kubelet wrote"},
      "message": "文件中的 cpuset 总共列出的 CPU 超过了 numascope 的上限；numascope 只展开到这一项为止，因此显示的 CPU 状态不完整。",
      "remedy": "确认这是 kubelet 写出的文件。"
    },
    {
      "match": {"remedy": "fix the cpuset reported above first"},
      "message": "还有更多 cpuset 没有检查：该文件超出了 numascope 的 CPU 数预算（数量见下方英文原文）。",
      "remedy": "先修正上面报告的 cpuset。"
    },
    {
      "match": {"remedy": "delete the file so that the kubelet rebuilds it"},
      "message": "memory_manager_state 的机器状态（machineState）中有 kubelet 启动检查无法处理的内容，kubelet 会崩溃或拒绝启动（是哪个 NUMA 节点、哪张表见下方英文原文）。",
      "remedy": "删除该文件，让 kubelet 重建它。"
    },
    {
      "match": {"remedy": "the file was edited or written for another machine: delete it so the kubelet rebuilds it"},
      "message": "某个 NUMA 节点的可分配内存（allocatable）不等于总量减去系统预留（和大页）的结果（数值见下方英文原文）。",
      "remedy": "该文件被编辑过，或者是为另一台机器写的：删除它，让 kubelet 重建它。"
    },
    {
      "match": {"remedy": "the file was edited or corrupted: delete it so the kubelet rebuilds it"},
      "message": "某个 NUMA 节点的空闲内存（free）不等于可分配内存减去已预留内存的结果（数值见下方英文原文）。",
      "remedy": "该文件被编辑过或已损坏：删除它，让 kubelet 重建它。"
    },
    {
      "match": {"remedy": "check --reserved-memory against the node's real memory"},
      "message": "某个 NUMA 节点的 systemReserved 大于其内存总量（数值见下方英文原文）。",
      "remedy": "对照节点的实际内存检查 --reserved-memory。"
    },
    {
      "match": {"remedy": "the kubelet always writes at least the node itself; delete the file so the kubelet rebuilds it"},
      "message": "某个 NUMA 节点没有组（cells 为空）。",
      "remedy": "kubelet 至少会写入节点自身；删除该文件，让 kubelet 重建它。"
    },
    {
      "match": {"remedy": "a node's group always contains the node itself; the file was edited: delete it so the kubelet rebuilds it"},
      "message": "某个 NUMA 节点的组不包含该节点自身（见下方英文原文）。",
      "remedy": "一个节点的组总是包含它自身；该文件被编辑过：删除它，让 kubelet 重建它。"
    },
    {
      "match": {"remedy": "the kubelet resets a node's group to itself when its last assignment goes"},
      "message": "某个 NUMA 节点属于一个多节点组，却没有任何分配（见下方英文原文）。",
      "remedy": "当一个节点的最后一个分配离开时，kubelet 会把它的组重置为它自身。"
    },
    {
      "match": {"remedy": "every node of a group must list the same group; the file was edited or corrupted: delete it so the kubelet rebuilds it"},
      "message": "两个 NUMA 节点列出的组不同：组不能相互重叠（见下方英文原文）。",
      "remedy": "一个组中的每个节点都必须列出同一个组；该文件被编辑过或已损坏：删除它，让 kubelet 重建它。"
    },
    {
      "match": {"remedy": "the kubelet will not start after a restart with this file (\"Invalid state, please drain node and remove policy state file\"): drain the node and delete memory_manager_state before restarting the kubelet"},
      "message": "把各条目重放后得到的机器状态与文件中存储的不同：\"[memorymanager] the expected machine state is different from the real one\"（差异见下方英文原文）。",
      "remedy": "kubelet 重启后无法用这个文件启动（\"Invalid state, please drain node and remove policy state file\"）：在重启 kubelet 之前，排空节点并删除 memory_manager_state。"
    },
    {
      "match": {"remedy": "drain the node and delete memory_manager_state before restarting the kubelet"},
      "message": "某个内存分配指向了不存在的 NUMA 节点或内存资源，kubelet 的启动检查会失败（见下方英文原文）。",
      "remedy": "在重启 kubelet 之前，排空节点并删除 memory_manager_state。"
    },
    {
      "match": {"remedy": "kubelets write the group under \"cells\"; renaming \"nodes\" to \"cells\" does not make the stored checksum valid (it was computed over other content): treat such a file as a documentation example, not as kubelet output"},
      "message": "某个 NUMA 节点把它的组写在 \"nodes\" 下，这是上游文档使用的名字；kubelet 读取的是 \"cells\" 并忽略 \"nodes\"（因此在 kubelet 看来这个节点没有组），numascope 把它当作 cells 的别名。",
      "remedy": "kubelet 把组写在 \"cells\" 下；把 \"nodes\" 改名为 \"cells\" 并不会让存储的校验和变得有效（它是对其他内容计算的）：请把这样的文件当作文档示例，而不是 kubelet 的输出。"
    },
    {
      "match": {"remedy": "upgrade the kubelet only after the kubelet has rewritten the file, or drain the node first"},
      "message": "证据所示的 kubelet 版本接受该文件，但最新的 kubelet 会拒绝它（版本见下方英文原文）。",
      "remedy": "等 kubelet 重写该文件之后再升级 kubelet，或者先排空节点。"
    },
    {
      "match": {"remedy": "the container keeps running, but the kubelet cannot give it its devices' settings after a restart: restart the pod"},
      "message": "某个容器的 AllocResp 不是有效的 ContainerAllocateResponse，kubelet 会跳过这个条目（容器、Pod 和资源见下方英文原文）。",
      "remedy": "容器会继续运行，但 kubelet 重启后无法再给它设备的设置：请重启该 Pod。"
    },
    {
      "match": {"remedy": "device plugins report NUMA ids ≥ 0, or no topology (stored under -1)"},
      "message": "这不是有效的 NUMA 节点编号。",
      "remedy": "设备插件上报的 NUMA 编号 ≥ 0，或者不上报拓扑（存为 -1）。"
    },
    {
      "match": {"remedy": "usually harmless: the plugin was unregistered while pods still held its devices"},
      "message": "某个资源分配给了容器，但不在 RegisteredDevices 中（资源与容器见下方英文原文）。",
      "remedy": "通常无害：在 Pod 仍持有其设备时，插件被注销了。"
    },
    {
      "match": {"remedy": "the kubelet starts with no prepared claims; restart the pods that use DRA claims"},
      "message": "这个 spew 时代的文件没有 Data 和 Checksum 成员，kubelet 的读取器会保留其空的默认 crc32 检查点，接受该文件并忘记其中的资源声明（数量见下方英文原文）。",
      "remedy": "kubelet 启动时没有任何已准备好的资源声明（claim）；请重启使用 DRA 资源声明的 Pod。"
    },
    {
      "match": {"remedy": "nothing to do: the kubelet does not check them"},
      "message": "数据部分的 kind/apiVersion 不是 DRACheckpoint/checkpoint.dra.kubelet.k8s.io/v1（实际值见下方英文原文）。",
      "remedy": "无需处理：kubelet 不检查它们。"
    },
    {
      "match": {"remedy": "paste the whole file unchanged, from its first { to its last }"},
      "message": "无法把这份输入读作 kubelet 检查点（原因见下方英文原文；不是有效的 JSON 时，英文原文会给出出错的行和列）。",
      "remedy": "原样粘贴整个文件，从第一个 { 到最后一个 }。"
    },
    {
      "match": {"remedy": "paste a cpu_manager_state, memory_manager_state, device-plugins/kubelet_internal_checkpoint or dra_manager_state file, or a PodResources answer"},
      "message": "这不是已知的 kubelet 检查点。",
      "remedy": "请粘贴 cpu_manager_state、memory_manager_state、device-plugins/kubelet_internal_checkpoint 或 dra_manager_state 文件，或者 PodResources 的应答。"
    },
    {
      "match": {"remedy": "check that this is the right file: kubelet checkpoints are a few kilobytes"},
      "message": "这份输入超过了大小上限（数值见下方英文原文）。",
      "remedy": "确认这是正确的文件：kubelet 检查点只有几 KB。"
    },
    {
      "match": {"remedy": "save the PodResources answer unchanged (on the node: podresources --json) and paste it again"},
      "message": "无法读取这份 PodResources 应答（原因见下方英文原文）。",
      "remedy": "原样保存 PodResources 应答（在节点上运行 podresources --json），然后重新粘贴。"
    },
    {
      "match": {"remedy": "paste kubelet log lines as journalctl -u kubelet or the kubelet's log file prints them"},
      "message": "无法把这份输入读作 kubelet 日志（原因见下方英文原文）。",
      "remedy": "按 journalctl -u kubelet 或 kubelet 日志文件输出的原样粘贴 kubelet 日志行。"
    },
    {
      "match": {"remedy": "paste the output of kubectl get pod NAME -o yaml"},
      "message": "无法把这份输入读作 Pod（原因见下方英文原文）。",
      "remedy": "粘贴 kubectl get pod NAME -o yaml 的输出。"
    },
    {
      "match": {"remedy": "paste the output of kubectl describe pod NAME or kubectl get events -o yaml"},
      "message": "无法把这份输入读作事件（原因见下方英文原文）。",
      "remedy": "粘贴 kubectl describe pod NAME 或 kubectl get events -o yaml 的输出。"
    },
    {
      "match": {"remedy": "paste the KubeletConfiguration file (often /var/lib/kubelet/config.yaml)"},
      "message": "无法把这份输入读作 kubelet 配置（原因见下方英文原文）。",
      "remedy": "粘贴 KubeletConfiguration 文件（通常是 /var/lib/kubelet/config.yaml）。"
    },
    {
      "match": {"remedy": "paste the output of kubectl get --raw /api/v1/nodes/NODE/proxy/spec"},
      "message": "无法把这份输入读作机器拓扑（原因见下方英文原文）。",
      "remedy": "粘贴 kubectl get --raw /api/v1/nodes/NODE/proxy/spec 的输出。"
    },
    {
      "match": {"remedy": "paste the file unchanged"},
      "message": "无法读取这份输入（原因见下方英文原文）。",
      "remedy": "原样粘贴该文件。"
    }
  ]
};

// own returns obj[key] when obj has it as its own property: codes and
// languages come from input, and "constructor" or "__proto__" must not
// find Object's.
function own(obj, key) {
  return obj && typeof obj === "object" && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

// fieldValues returns the values at a dotted path of obj; a "*" segment
// takes every element of a list.
function fieldValues(obj, path) {
  let vals = [obj];
  for (const seg of path.split(".")) {
    const next = [];
    for (const v of vals) {
      if (v === null || v === undefined || typeof v !== "object") continue;
      if (seg === "*") {
        if (Array.isArray(v)) next.push(...v);
      } else if (Object.prototype.hasOwnProperty.call(v, seg)) {
        next.push(v[seg]);
      }
    }
    vals = next;
  }
  return vals.filter((v) => v !== undefined && v !== null);
}

// nodesText renders a list of NUMA node ids.
function nodesText(nodes) {
  return Array.isArray(nodes) && nodes.length ? nodes.join(",") : "";
}

// hintText renders a NUMA hint ({numaAffinity, preferred}; reports
// before the field was renamed wrote numaNodes) in Chinese.
function hintText(h) {
  const nodes = "numaAffinity" in h ? h.numaAffinity : h.numaNodes;
  const where = nodes && nodes.length ? "NUMA 节点 " + nodesText(nodes) : "任意 NUMA 节点";
  return where + (h.preferred ? "（首选）" : "（非首选）");
}

// rowSources names where the figures of a row come from (ResourceRow.Source).
const ROW_SOURCES = { "log hints": "依据日志中的提示", "state": "依据状态文件" };

// rowsText renders the requested/free rows of a TopologyAffinityError per
// resource: "cpu 请求 2（依据状态文件）：NUMA 0 空闲 19，可容纳；…".
function rowsText(rows) {
  const groups = [];
  const byKey = new Map();
  for (const r of rows) {
    if (!r || typeof r !== "object") continue;
    const key = [r.resource, r.requested, r.source].map(String).join("\u0000");
    let g = byKey.get(key);
    if (!g) {
      const src = r.source ? ROW_SOURCES[r.source] || String(r.source) : "";
      g = { head: String(r.resource || "?") + " 请求 " + String(r.requested || "?") + (src ? "（" + src + "）" : ""), cells: [] };
      byKey.set(key, g);
      groups.push(g);
    }
    g.cells.push({ r, text: "NUMA " + (nodesText(r.numaNodes) || "?") + (r.free ? " 空闲 " + String(r.free) + "，" : " ") + (r.fits ? "可容纳" : "容纳不下") });
  }
  // A row with a note is a memory group, or a node of one: a node in a
  // group is usable only with its whole group.
  for (const g of groups) {
    g.cells = g.cells.map(({ r, text }) => {
      const nodes = Array.isArray(r.numaNodes) ? r.numaNodes : [];
      if (!r.note) return text;
      if (nodes.length > 1) return text + "（NUMA 组）";
      const group = g.cells.find((c) => Array.isArray(c.r.numaNodes) && c.r.numaNodes.length > 1 && c.r.numaNodes.includes(nodes[0]));
      return group ? text + "（属于 NUMA 组 " + nodesText(group.r.numaNodes) + "，只能整组使用）" : text;
    });
  }
  return groups.map((g) => g.head + "：" + g.cells.join("；")).join("。");
}

// valueText renders one field value for a template, or "" when it is empty.
function valueText(path, v) {
  if (v === undefined || v === null || v === "") return "";
  if (Array.isArray(v)) {
    if (!v.length) return "";
    if (path === "topologyAffinityError.resources") return rowsText(v);
    return v.map((x) => valueText("", x)).filter(Boolean).join("、");
  }
  if (typeof v === "object") {
    if (typeof v.file === "string") return v.file + (v.line ? ":" + v.line : v.path ? "#" + v.path : "");
    if ("numaAffinity" in v || "numaNodes" in v || "preferred" in v) return hintText(v);
    return "";
  }
  if (typeof v === "boolean") return v ? "是" : "否";
  return String(v);
}

const PLACEHOLDER = /\{([A-Za-z][\w.]*)(?:\|([^{}]*))?\}/g;

// render fills a template from obj; missing stands for a field that is
// empty outside of an optional [[...]] part.
function render(tmpl, obj, missing) {
  if (!tmpl) return "";
  const fill = (s, optional) => {
    let empty = false;
    const out = s.replace(PLACEHOLDER, (m, path, def) => {
      const text = fieldValues(obj, path).map((v) => valueText(path, v)).filter(Boolean).join("、");
      if (text) return text;
      if (def !== undefined) return def;
      empty = true;
      return optional ? "" : missing;
    });
    return optional && empty ? "" : out;
  };
  return fill(tmpl.replace(/\[\[([\s\S]*?)\]\]/g, (m, inner) => fill(inner, true)), false);
}

// matches reports whether every condition of when holds for f.
function matches(when, f) {
  for (const [path, want] of Object.entries(when || {})) {
    const vals = fieldValues(f, path);
    const ok = vals.some((v) => {
      if (want === "*") return v !== "" && !(Array.isArray(v) && !v.length);
      if (Array.isArray(want)) return want.includes(v);
      return v === want;
    });
    if (!ok) return false;
  }
  return true;
}

// findingTexts returns the title, explanation and remedy of a diagnose
// finding in lang, and whether they are a translation; for English, or a
// code without a translation, the engine's own texts.
function findingTexts(lang, f) {
  if (!f || typeof f !== "object") f = {};
  const str = (v) => (typeof v === "string" ? v : "");
  const orig = { title: str(f.title) || str(f.code), explanation: str(f.explanation), remedy: str(f.remedy), translated: false };
  const table = own(FINDING_TEXTS, lang);
  const entry = table && own(table.codes, f.code);
  if (!entry) return orig;
  const t = { title: entry.title, explanation: entry.explanation, remedy: entry.remedy, why: entry.why || "" };
  for (const v of entry.variants || []) {
    if (!matches(v.when, f)) continue;
    for (const k of ["title", "explanation", "remedy", "why"]) if (v[k]) t[k] = v[k];
    break;
  }
  const miss = table.common.missing;
  const explanation = render(t.explanation.replace("{@why}", t.why), f, miss) + render(table.common.knownBugsExplanation, f, miss);
  const remedy = render(table.common.knownBugsRemedy, f, miss) + render(t.remedy, f, miss);
  return { title: render(t.title, f, miss), explanation, remedy, translated: true };
}

// problemTexts returns the message and remedy of a state-file problem
// ({path, message, remedy, severity}) in lang, and whether they are a
// translation; otherwise the problem's own texts.
function problemTexts(lang, p) {
  if (!p || typeof p !== "object") p = {};
  const orig = { message: typeof p.message === "string" ? p.message : "", remedy: typeof p.remedy === "string" ? p.remedy : "", translated: false };
  const table = own(PROBLEM_TEXTS, lang);
  if (!table || typeof p.remedy !== "string") return orig;
  for (const e of table) {
    const m = e.match;
    if (m.remedy !== undefined && p.remedy !== m.remedy) continue;
    if (m.remedyPrefix !== undefined && !p.remedy.startsWith(m.remedyPrefix)) continue;
    if (m.path !== undefined && !new RegExp(m.path).test(typeof p.path === "string" ? p.path : "")) continue;
    if (m.severity !== undefined && p.severity !== m.severity) continue;
    return { message: e.message, remedy: e.remedy, translated: true };
  }
  return orig;
}

// findingTitle translates the title of a finding by its code alone (the
// parts that need the finding's fields are left out).
function findingTitle(lang, code, title) {
  const table = own(FINDING_TEXTS, lang);
  const entry = table && own(table.codes, code);
  return (entry && render(entry.title, { code }, "")) || title || code;
}
