<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en">
<context>
    <name>AliasEditor</name>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="67" />
        <source>教它一个叫法（全局用户别名，最高信任）</source>
        <translation>Teach a name (global user alias, highest trust)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="69" />
        <source>名称，例如 绿泡泡</source>
        <translation>Name, e.g. 绿泡泡</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="71" />
        <source>包名，例如 com.tencent.mm</source>
        <translation>Package, e.g. com.tencent.mm</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="72" />
        <source>保存</source>
        <translation>Save</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="73" />
        <source>忘记这个叫法</source>
        <translation>Forget this name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="74" />
        <source>撤销</source>
        <translation>Undo</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="75" />
        <source>重做</source>
        <translation>Redo</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="85" />
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="86" />
        <location filename="../../gui/pages/alias_editor.py" line="225" />
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="93" />
        <source>试试解析</source>
        <translation>Try a name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="95" />
        <source>输入一个叫法，看它会打开哪个应用</source>
        <translation>Type a name to see which app it would open</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="97" />
        <source>不限设备</source>
        <translation>Any device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="106" />
        <source>这个叫法的历史</source>
        <translation>History of this name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="132" />
        <source>已保存：{0} → {1}</source>
        <translation>Saved: {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="135" />
        <source>设置 {0}</source>
        <translation>Set {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="146" />
        <source>已忘记 {0}（设备清单条目不动）</source>
        <translation>Forgot {0} (device entries kept)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="147" />
        <source>忘记 {0}</source>
        <translation>Forget {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="149" />
        <source>{0} 没有可忘记的用户或学习别名</source>
        <translation>{0} has no user or learned alias to forget</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="160" />
        <source>已撤回改动 {0}</source>
        <translation>Reverted change {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="189" />
        <source>改动</source>
        <translation>change</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="197" />
        <source>没有历史</source>
        <translation>No history</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="209" />
        <source>可直接打开</source>
        <translation>Safe to open</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="210" />
        <source>需要模型选择</source>
        <translation>Needs the model to choose</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="211" />
        <source>不认识</source>
        <translation>Unknown</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="216" />
        <source>已安装</source>
        <translation>installed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="216" />
        <source>未安装</source>
        <translation>not installed</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="226" />
        <source>标准名</source>
        <translation>Label</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="227" />
        <source>匹配到</source>
        <translation>Matched</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="228" />
        <source>证据</source>
        <translation>Evidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="229" />
        <source>相似度</source>
        <translation>Similarity</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="230" />
        <source>先验</source>
        <translation>Prior</translation>
    </message>
    <message>
        <location filename="../../gui/pages/alias_editor.py" line="231" />
        <source>得分</source>
        <translation>Score</translation>
    </message>
</context>
<context>
    <name>AliasTableModel</name>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="71" />
        <source>名称</source>
        <translation>Name</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="72" />
        <source>标准名</source>
        <translation>Label</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="73" />
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="74" />
        <source>来源</source>
        <translation>Source</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="75" />
        <source>范围</source>
        <translation>Scope</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="76" />
        <source>置信度</source>
        <translation>Confidence</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="77" />
        <source>成功次数</source>
        <translation>Successes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="78" />
        <source>最近成功</source>
        <translation>Last success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="79" />
        <source>状态</source>
        <translation>State</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="82" />
        <source>用户</source>
        <translation>User</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="83" />
        <source>设备清单</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="84" />
        <source>学习</source>
        <translation>Learned</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="85" />
        <source>别名</source>
        <translation>Alias</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="129" />
        <source>首次出现 {0}，最近出现 {1}</source>
        <translation>First seen {0}, last seen {1}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="140" />
        <source>全局</source>
        <translation>Global</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="148" />
        <source>已失效</source>
        <translation>Stale</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="148" />
        <source>有效</source>
        <translation>Live</translation>
    </message>
</context>
<context>
    <name>AppKbPage</name>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="166" />
        <source>搜索名称、标准名或包名</source>
        <translation>Search names, labels or packages</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="169" />
        <source>全部设备</source>
        <translation>All devices</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="171" />
        <source>全部来源</source>
        <translation>All sources</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="175" />
        <source>显示已失效</source>
        <translation>Show stale</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="197" />
        <source>信任顺序：用户 &gt; 设备清单 &gt; 学习。设备清单条目来自设备，只读；在右侧教它新的叫法或让它忘记。</source>
        <translation>Trust: user &gt; device &gt; learned. Device entries come from the devices and are read-only; teach or forget names on the right.</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="205" />
        <location filename="../../gui/pages/appkb_page.py" line="365" />
        <source>显示 {0}{1} 条，共 {2} 条</source>
        <translation>Showing {0}{1} of {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="221" />
        <source>导入 TaskWizard…</source>
        <translation>Import TaskWizard…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="222" />
        <source>导出 TaskWizard…</source>
        <translation>Export TaskWizard…</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="303" />
        <source>选择 TaskWizard 的 memory 目录</source>
        <translation>Choose TaskWizard's memory folder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="312" />
        <source>{0}：已导入过</source>
        <translation>{0}: imported before</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="314" />
        <source>{0}：导入 {1} 条，跳过 {2} 条损坏</source>
        <translation>{0}: imported {1}, skipped {2} corrupt</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="327" />
        <source>已导出 {0} 个应用库事件、{1} 条档案到 {2}</source>
        <translation>Exported {0} App-KB events and {1} episode records to {2}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="336" />
        <source>没有完成：{0}</source>
        <translation>Not done: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/appkb_page.py" line="345" />
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
</context>
<context>
    <name>EpisodeTableModel</name>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="62" />
        <source>结束时间</source>
        <translation>Ended</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="63" />
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="64" />
        <source>应用</source>
        <translation>Apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="65" />
        <source>结果</source>
        <translation>Outcome</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="66" />
        <source>步数</source>
        <translation>Steps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="67" />
        <source>令牌</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="68" />
        <source>验收</source>
        <translation>Verifier</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="69" />
        <source>回想</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="119" />
        <source>成功</source>
        <translation>Success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="119" />
        <source>失败</source>
        <translation>Failure</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="123" />
        <source>已撤销</source>
        <translation>Revoked</translation>
    </message>
</context>
<context>
    <name>EpisodesPage</name>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="144" />
        <source>搜索目标</source>
        <translation>Search goals</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="146" />
        <source>应用包名</source>
        <translation>App package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="148" />
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="150" />
        <source>全部结果</source>
        <translation>All outcomes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="150" />
        <source>成功</source>
        <translation>Success</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="150" />
        <source>失败</source>
        <translation>Failure</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="154" />
        <source>全部时间</source>
        <translation>All time</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="155" />
        <source>最近 1 天</source>
        <translation>Last day</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="156" />
        <source>最近 7 天</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="157" />
        <source>最近 30 天</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="184" />
        <source>撤销回想</source>
        <translation>Revoke from recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="185" />
        <source>恢复回想</source>
        <translation>Restore to recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="291" />
        <source>应用</source>
        <translation>Apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="292" />
        <source>令牌</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="293" />
        <source>注入的经验</source>
        <translation>Lessons given</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="294" />
        <source>工具事件</source>
        <translation>Tool events</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="295" />
        <source>回想</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="296" />
        <source>召回</source>
        <translation>Recalled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="297" />
        <source>实际</source>
        <translation>Actual</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="298" />
        <source>污染</source>
        <translation>Contaminated</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="299" />
        <source>这次运行没有回想记录</source>
        <translation>This run has no recall record</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="320" />
        <source>是</source>
        <translation>yes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/episodes_page.py" line="320" />
        <source>否</source>
        <translation>no</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gui/main_window.py" line="32" />
        <source>记忆 Jiyi — {0}</source>
        <translation>Jiyi — {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="38" />
        <source>概览</source>
        <translation>Overview</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="40" />
        <source>应用库 App-KB</source>
        <translation>App-KB</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="41" />
        <source>运行档案</source>
        <translation>Episodes</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="43" />
        <source>回想质量</source>
        <translation>Recall quality</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="54" />
        <source>状态目录：{0}</source>
        <translation>Home: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="71" />
        <source>设置…</source>
        <translation>Settings…</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="95" />
        <source>服务未启动：{0}</source>
        <translation>Service not running: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="97" />
        <source>服务未启动</source>
        <translation>Service not running</translation>
    </message>
    <message>
        <location filename="../../gui/main_window.py" line="100" />
        <source>服务 {0} · {1} 个连接 · {2} 次/分钟</source>
        <translation>Service {0} · {1} connected · {2}/min</translation>
    </message>
</context>
<context>
    <name>OverviewPage</name>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="33" />
        <source>存储</source>
        <translation>Storage</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="35" />
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="36" />
        <source>数据库</source>
        <translation>Database</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="37" />
        <source>结构版本</source>
        <translation>Schema version</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="41" />
        <source>记忆内容</source>
        <translation>What it remembers</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="43" />
        <source>应用库条目</source>
        <translation>App-KB entries</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="44" />
        <source>运行档案</source>
        <translation>Episodes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="45" />
        <source>事件</source>
        <translation>Events</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="46" />
        <source>设备</source>
        <translation>Device</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="47" />
        <source>进行中的运行</source>
        <translation>Runs under way</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="51" />
        <source>语义回想</source>
        <translation>Semantic recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="52" />
        <source>模式</source>
        <translation>Mode</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="52" />
        <source>嵌入模型</source>
        <translation>Embedder</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="52" />
        <source>向量索引</source>
        <translation>Vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="54" />
        <source>整理与错误</source>
        <translation>Dream and errors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="54" />
        <source>上次整理</source>
        <translation>Last dream</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="54" />
        <source>最近错误</source>
        <translation>Recent errors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="65" />
        <source>重建向量索引</source>
        <translation>Rebuild vector index</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="67" />
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="80" />
        <source>读取失败：{0}</source>
        <translation>Could not load: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="95" />
        <source>无</source>
        <translation>none</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="98" />
        <source>正常，{0} 条运行向量</source>
        <translation>OK, {0} episode vectors</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="101" />
        <source>有问题：{0}</source>
        <translation>Problem: {0}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="107" />
        <source>别名纠正</source>
        <translation>alias fixes</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="108" />
        <source>合并</source>
        <translation>merged</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="109" />
        <source>淘汰</source>
        <translation>evicted</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="110" />
        <source>折叠</source>
        <translation>folded</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="111" />
        <source>索引对账</source>
        <translation>reconciled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="114" />
        <source>完整</source>
        <translation>full</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="114" />
        <source>轻量</source>
        <translation>light</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="117" />
        <source>还没有整理过</source>
        <translation>Not yet</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="121" />
        <source>档案写入失败 {0} 次，回想失败 {1} 次</source>
        <translation>{0} archive write failures, {1} recall failures</translation>
    </message>
    <message>
        <location filename="../../gui/pages/overview_page.py" line="129" />
        <source>正在重建…</source>
        <translation>Rebuilding…</translation>
    </message>
</context>
<context>
    <name>RecallPage</name>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="67" />
        <source>最近 7 天</source>
        <translation>Last 7 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="68" />
        <source>最近 30 天</source>
        <translation>Last 30 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="69" />
        <source>最近 90 天</source>
        <translation>Last 90 days</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="70" />
        <source>全部</source>
        <translation>All</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="75" />
        <source>刷新</source>
        <translation>Refresh</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="86" />
        <source>每日 Hit@1、命中率与污染率</source>
        <translation>Daily Hit@1, hit rate and contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="89" />
        <source>每日评估次数</source>
        <translation>Evaluations per day</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="91" />
        <source>各应用的精确率（蓝）与召回率（绿），评估最多的 10 个</source>
        <translation>Precision (blue) and recall (green) of the 10 most evaluated apps</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="96" />
        <source>包名</source>
        <translation>Package</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="96" />
        <source>精确率</source>
        <translation>Precision</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="96" />
        <source>召回率</source>
        <translation>Recall</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="96" />
        <source>召回次数</source>
        <translation>Recalled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="96" />
        <source>实际次数</source>
        <translation>Launched</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="106" />
        <source>点击上方图表中的某一天，查看那天的运行</source>
        <translation>Click a day in the chart above to see its runs</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="132" />
        <source>模式 {0} · 嵌入模型 {1} · 评估 {2} 次 · Hit@1 {3:.2f} · 污染率 {4:.2f} · 弃答率 {5:.2f}</source>
        <translation>Mode {0} · embedder {1} · {2} evaluations · Hit@1 {3:.2f} · contamination {4:.2f} · abstained {5:.2f}</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="149" />
        <source>命中率</source>
        <translation>Hit rate</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="150" />
        <source>污染率</source>
        <translation>Contamination</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="166" />
        <source>Hit@1（7 日滚动）</source>
        <translation>Hit@1 (7-day rolling)</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="225" />
        <source>运行</source>
        <translation>Run</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="225" />
        <source>目标</source>
        <translation>Goal</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="225" />
        <source>召回</source>
        <translation>Recalled</translation>
    </message>
    <message>
        <location filename="../../gui/pages/recall_page.py" line="225" />
        <source>实际</source>
        <translation>Actual</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../gui/settings_dialog.py" line="35" />
        <source>设置</source>
        <translation>Settings</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="37" />
        <source>换一个状态目录：jiyi --home DIR 或 JIYI_HOME</source>
        <translation>Use another home with jiyi --home DIR or JIYI_HOME</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="40" />
        <source>影子（只记录，不给智能体）</source>
        <translation>Shadow (logged, never given to the agent)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="41" />
        <source>开启（给智能体已批准的经验）</source>
        <translation>On (agents get approved lessons)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="42" />
        <source>关闭</source>
        <translation>Off</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="50" />
        <source>hash（仅供测试）</source>
        <translation>hash (tests only)</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="55" />
        <source>跟随系统</source>
        <translation>System</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="55" />
        <source>浅色</source>
        <translation>Light</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="55" />
        <source>深色</source>
        <translation>Dark</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="63" />
        <source>回想模式和嵌入模型写入状态目录的 config.toml，下次打开时生效；换嵌入模型后请重建向量索引。</source>
        <translation>Recall mode and embedder are written to the home's config.toml and apply the next time it opens; rebuild the vector index after changing the embedder.</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="67" />
        <source>状态目录</source>
        <translation>Home</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="68" />
        <source>回想模式</source>
        <translation>Recall mode</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="69" />
        <source>嵌入模型</source>
        <translation>Embedder</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="70" />
        <source>配色</source>
        <translation>Colours</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="71" />
        <source>语言</source>
        <translation>Language</translation>
    </message>
    <message>
        <location filename="../../gui/settings_dialog.py" line="72" />
        <source>语言在下次打开时生效。</source>
        <translation>The language applies the next time the console opens.</translation>
    </message>
</context>
</TS>